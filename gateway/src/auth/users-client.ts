import { signIdentity } from '@community/http-kit';
import type { Upstream } from '../proxy/upstream';

export interface InternalAnswer {
  status: number;
  body: unknown;
}

/** Calls users-service's /internal endpoints, signed like every gateway request, through its breaker. */
export class UsersClient {
  constructor(
    private readonly baseUrl: string,
    private readonly internalToken: string,
    private readonly upstream: Upstream,
    private readonly timeoutMs = 3_000,
  ) {}

  post(path: string, body: unknown): Promise<InternalAnswer> {
    return this.upstream.call(async () => {
      const res = await fetch(this.baseUrl + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signIdentity(this.internalToken, { method: 'POST', url: path, actor: null }),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await res.text();
      if (res.status >= 500) throw new Error(`users-service answered ${res.status}`);
      return { status: res.status, body: text ? JSON.parse(text) : null };
    });
  }
}
