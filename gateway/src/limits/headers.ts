import type { ServerResponse } from 'node:http';
import type { WindowState } from './limiter';

export function setLimitHeaders(res: ServerResponse, window: WindowState): void {
  res.setHeader('X-RateLimit-Limit', String(window.limit));
  res.setHeader('X-RateLimit-Remaining', String(window.remaining));
  res.setHeader('X-RateLimit-Reset', String(window.reset));
}
