import type { Request } from 'express';

/**
 * The origin (and path prefix) clients reach the platform at, for absolute URLs in answers:
 * PUBLIC_BASE_URL when configured, else the scheme and `Host` the request came in with. The gateway
 * forwards the client's `Host` and sets `X-Forwarded-Proto`; `X-Forwarded-Host` is not used, since a
 * client can add it to what the gateway forwards.
 */
export function publicBase(req: Request, configured: string | undefined): string {
  return configured ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
