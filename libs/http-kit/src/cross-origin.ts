import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether a browser sent this request from another origin: `Sec-Fetch-Site` says so where the
 * browser sends it; otherwise an `Origin` whose host is not the one the request was sent to (or the
 * opaque `null`). A request without either did not come from another origin's page.
 */
export function isCrossOrigin(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).host !== headers.host;
  } catch {
    return true;
  }
}
