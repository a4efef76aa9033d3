import type { Request } from 'express';

/** A Host header fit to build a URL on: a host name or IP literal with an optional port. */
const SANE_HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The origin (and path prefix) clients reach the platform at, for absolute URLs in answers (pagination
 * links, default avatars): PUBLIC_BASE_URL when configured (the app's `publicBaseUrl`, see
 * createServiceApp), else the scheme and `Host` the request came in with — `localhost` when that Host is not a
 * host name. The gateway forwards the client's `Host` and sets `X-Forwarded-Proto`;
 * `X-Forwarded-Host` is not used, since a client can add it to what the gateway forwards.
 */
export function publicBase(req: Request): string {
  const configured = (req.app.locals as { publicBaseUrl?: string }).publicBaseUrl;
  if (configured) return configured.replace(/\/+$/, '');
  const host = req.get('host');
  return `${req.protocol === 'https' ? 'https' : 'http'}://${host && SANE_HOST.test(host) ? host : 'localhost'}`;
}
