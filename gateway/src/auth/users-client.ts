import { Agent, fetch } from 'undici';
import { signIdentity } from '@community/http-kit';
import { IDLE_CONNECTION_MS } from '../proxy/forward';
import type { Breaker } from '../proxy/breaker';

export interface InternalAnswer {
  status: number;
  body: unknown;
}

/**
 * Calls users-service's /internal endpoints (key lookups, usage reports), signed like every gateway
 * request, through a breaker of their own: whatever happens to the users-service traffic the
 * gateway proxies, it cannot stop keys from being checked, and the other way round (DESIGN.md §9).
 */
export class UsersClient {
  constructor(
    private readonly baseUrl: string,
    private readonly internalToken: string,
    readonly breaker: Breaker,
    private readonly timeoutMs = 3_000,
  ) {}

  /** Let go sooner than a users-service stopping closes them (see IDLE_CONNECTION_MS). */
  private readonly connections = new Agent({
    keepAliveTimeout: IDLE_CONNECTION_MS,
    keepAliveMaxTimeout: IDLE_CONNECTION_MS,
  });

  post(path: string, body: unknown): Promise<InternalAnswer> {
    return this.breaker.fire(async () => {
      const res = await fetch(this.baseUrl + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signIdentity(this.internalToken, { method: 'POST', url: path, actor: null }),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        dispatcher: this.connections,
      });
      const text = await res.text();
      if (res.status >= 500) throw new Error(`users-service answered ${res.status}`);
      return { status: res.status, body: text ? JSON.parse(text) : null };
    }) as Promise<InternalAnswer>;
  }

  close(): void {
    void this.connections.close();
  }
}
