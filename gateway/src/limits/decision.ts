import type { Lease } from './lease';

/**
 * What a decision of the limiter is made of: whose budget (a subject), its windows as the decision
 * leaves them, and the decision itself (limiter.ts decides; headers.ts shows it).
 */
export interface Subject {
  /** `acct:<id>`, `ip:<address>`, `pages:<address>` or `client:<id>`: one budget each. */
  key: string;
  kind: 'account' | 'anonymous' | 'pages' | 'client';
  hourly: number;
  /** No daily window when absent (the pages budget is hourly only). */
  daily?: number;
}

/** One window of a budget as a decision leaves it: what the limit headers show. */
export interface BudgetWindow {
  /** `hour` or `day`: the names of the IETF RateLimit headers. */
  name: WindowName;
  /** The window's length in seconds. */
  seconds: number;
  limit: number;
  remaining: number;
  /** Unix time in seconds at which the window resets. */
  reset: number;
}

export type WindowName = 'hour' | 'day';

/**
 * What the limiter decided about one request. `shown` is the window the `X-RateLimit-*` headers
 * describe (the tighter one); `windows` are all of the subject's, after this request.
 */
export type Decision = {
  shown: BudgetWindow;
  windows: BudgetWindow[];
  /** The lease of this process it was served from, if any: where a `304`'s request goes back. */
  lease?: Lease;
} & ({ allowed: true } | { allowed: false; retryAfter: number });

/** The periods a budget is counted in, their length in seconds and their names on the wire. */
export const PERIOD_SECONDS = { hourly: 3600, daily: 86_400 } as const;
export type Period = keyof typeof PERIOD_SECONDS;
export const PERIOD_NAMES: Record<Period, WindowName> = { hourly: 'hour', daily: 'day' };
/** A period's window as a decision leaves it, `msLeft` before it resets. */
export function budgetWindow(
  period: Period,
  limit: number,
  remaining: number,
  msLeft: number,
  now: number,
): BudgetWindow {
  return {
    name: PERIOD_NAMES[period],
    seconds: PERIOD_SECONDS[period],
    limit,
    remaining: Math.max(0, Math.min(limit, remaining)),
    reset: Math.ceil((now + msLeft) / 1000),
  };
}

/** The window with fewer requests left is the one the caller should watch (tie: hourly). */
export const tightest = (states: BudgetWindow[]) =>
  states.reduce((tight, s) => (s.remaining < tight.remaining ? s : tight));

/** The decision as it stands once the request it counted is given back (a `304`). */
export function refunded(decision: Decision): Decision {
  const windows = decision.windows.map((w) => ({ ...w, remaining: Math.min(w.limit, w.remaining + 1) }));
  return { ...decision, windows, shown: tightest(windows) };
}

export const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
