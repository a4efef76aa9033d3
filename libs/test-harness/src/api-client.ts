import { signIdentity } from '@community/http-kit';
import type { Actor, Role, Scope } from '@community/contracts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Client address the gateway vouches for (per-IP limits in the services). */
  clientIp?: string;
  body?: unknown;
  /** A raw body sent as-is (for malformed JSON, wrong media types, bytes that are not UTF-8). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Skip the gateway's signature, as a caller reaching the service directly would. */
  unsigned?: boolean;
}

export function actor(userId: number, role: Role = 'member', scopes: Scope[] = ['read', 'write']): Actor {
  return { userId, role, scopes: new Set(scopes) };
}

/** Calls the service the way the gateway does: identity headers signed with the internal token. */
export function apiClient(baseUrl: string, internalToken: string) {
  return async function call<T = any>(
    as: Actor | null,
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    // Paths outside the API (/internal/…, /account/…, /avatars/…) are given whole.
    const whole = ['/internal/', '/account', '/avatars/'].some((prefix) => path.startsWith(prefix));
    const url = whole ? path : `/api/v1${path}`;
    const headers: Record<string, string> = {
      ...(options.unsigned
        ? {}
        : signIdentity(internalToken, { method, url, actor: as, clientIp: options.clientIp })),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    };
    const body = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
    const res = await fetch(baseUrl + url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
}
