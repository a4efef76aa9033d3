import type { ServerResponse } from 'node:http';
import type { BudgetWindow, Decision } from './decision';

/**
 * The limit headers of every answer (DESIGN.md §6, §10): `X-RateLimit-*` for the tighter window,
 * and the IETF `RateLimit-Policy` / `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers) for
 * both, so neither window bites unseen.
 */
export function setLimitHeaders(res: ServerResponse, { shown, windows }: Decision): void {
  res.setHeader('X-RateLimit-Limit', String(shown.limit));
  res.setHeader('X-RateLimit-Remaining', String(shown.remaining));
  res.setHeader('X-RateLimit-Reset', String(shown.reset));
  // Whole seconds up to the reset, never more than the window (reset is rounded up too).
  const now = Math.ceil(Date.now() / 1000);
  res.setHeader('RateLimit-Policy', policyOf(windows));
  res.setHeader(
    'RateLimit',
    windows.map((w) => `"${w.name}";r=${w.remaining};t=${Math.max(0, w.reset - now)}`).join(', '),
  );
}

/** Each pair of caps' `RateLimit-Policy` (one per plan and budget: a handful), written once. */
const policies = new Map<number, Map<number | undefined, string>>();

/** The windows' policy: the hourly window first, then the daily one if the subject has one. */
function policyOf(windows: BudgetWindow[]): string {
  let byDaily = policies.get(windows[0]!.limit);
  if (!byDaily) policies.set(windows[0]!.limit, (byDaily = new Map()));
  let policy = byDaily.get(windows[1]?.limit);
  if (policy === undefined) {
    policy = windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', ');
    byDaily.set(windows[1]?.limit, policy);
  }
  return policy;
}
