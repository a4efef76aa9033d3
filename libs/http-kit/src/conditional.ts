import type { Express, Request } from 'express';

/**
 * Whether an `If-None-Match` header names `etag` (RFC 9110 §13.1.2: `*`, or a list of tags compared
 * weakly). A request's `Cache-Control: no-cache` changes nothing here: it speaks to caches, and
 * fetch() adds it to every request that carries `If-None-Match` itself.
 */
export function namesEtag(ifNoneMatch: string | undefined, etag: string | undefined): boolean {
  if (!ifNoneMatch || !etag) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/**
 * Express answers `304` when `req.fresh`; its own `fresh` never is for a request carrying
 * `Cache-Control: no-cache`, which is every browser fetch() with `If-None-Match` — so a browser app
 * could never get its free 304 (DESIGN.md §10). This app's requests judge freshness by the RFC instead.
 */
export function conditionalRequests(app: Express): void {
  app.set('etag', 'strong');
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    get(this: Request): boolean {
      if (this.method !== 'GET' && this.method !== 'HEAD') return false;
      const status = this.res!.statusCode;
      if ((status < 200 || status >= 300) && status !== 304) return false;
      return namesEtag(this.headers['if-none-match'], this.res!.getHeader('ETag') as string | undefined);
    },
  });
}
