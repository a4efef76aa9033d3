import type { ServerResponse } from 'node:http';
import { RateLimitedError, type ResolvedKey } from '@community/contracts';
import { oncePer } from '../once-per';
import { setLimitHeaders } from './headers';
import { refunded, type Decision, type Subject } from './decision';
import type { TwoWindowLimiter } from './limiter';

export interface Budgets {
  /** Per client address, for requests without a valid key (ANON_*_LIMIT). */
  anonymous: { hourly: number; daily: number };
  /** The account pages' and /docs' hourly budget per address (PAGES_HOURLY_LIMIT). */
  pagesHourly: number;
}

export interface Caller {
  resolved: ResolvedKey | null;
  /** An account page (`/account/*`). */
  page: boolean;
  /** An OAuth client users-service has accepted, naming itself at the token or revocation endpoint. */
  client: string | null;
  clientIp: string;
}

/**
 * Whose budget a request comes out of (DESIGN.md §6, §9): the account behind a valid key; else the
 * pages budget of the address for an account page; else a known OAuth client's own; else the
 * address's anonymous budget.
 */
export function subjectFor({ resolved, page, client, clientIp }: Caller, budgets: Budgets): Subject {
  if (resolved) return accountSubject(resolved);
  if (page) return pagesSubject(clientIp, budgets.pagesHourly);
  if (client) return { key: `client:${client}`, kind: 'client', ...budgets.anonymous };
  return addressSubject(clientIp, budgets);
}

/** Each account's subject, made once for each resolved value the key cache holds (not per request). */
const accountSubject = oncePer((resolved: ResolvedKey): Subject => ({
  key: `acct:${resolved.user_id}`,
  kind: 'account',
  ...resolved.limits,
}));

export const addressSubject = (clientIp: string, budgets: Budgets): Subject => ({
  key: `ip:${clientIp}`,
  kind: 'anonymous',
  ...budgets.anonymous,
});

/**
 * Anyone can name a client id, and the gateway cannot check a client's secret: so only what the
 * client evidently did itself — an answer of 200 — is paid from the client's budget. Any other
 * answer moves the request to the caller's address, and an address that has spent its anonymous
 * budget that way is no longer let in on a client's budget. Naming someone else's app exhausts
 * one's own address, never the app.
 */
export async function clientMayPay(limiter: TwoWindowLimiter, clientIp: string, budgets: Budgets) {
  return !(await limiter.exhausted(addressSubject(clientIp, budgets)));
}

export async function settleClientRequest(
  limiter: TwoWindowLimiter,
  subject: Subject,
  clientIp: string,
  budgets: Budgets,
  status: number,
): Promise<void> {
  // The answer is on its way already: nothing here may fail the request.
  if (subject.kind === 'client' && status !== 200)
    await limiter.recharge(subject, addressSubject(clientIp, budgets)).catch(() => undefined);
}

/** The account pages and /docs: a budget per address of their own, hourly only. */
export const pagesSubject = (clientIp: string, hourly: number): Subject => ({
  key: `pages:${clientIp}`,
  kind: 'pages',
  hourly,
});

/**
 * Counts the request against the subject's budget, sets the limit headers, and throws the 429 when
 * over budget. At once when this process's lease decides it; a promise when Redis must be asked.
 */
export function admit(
  limiter: TwoWindowLimiter,
  subject: Subject,
  res: ServerResponse,
): Decision | Promise<Decision> {
  const decision = limiter.admit(subject);
  return decision instanceof Promise ? decision.then((d) => announce(d, res)) : announce(decision, res);
}

/** The decision's limit headers, and the 429 when it refused. */
function announce(decision: Decision, res: ServerResponse): Decision {
  setLimitHeaders(res, decision);
  if (!decision.allowed) {
    throw new RateLimitedError(
      `rate limit exceeded; retry in ${decision.retryAfter} seconds`,
      decision.retryAfter,
    );
  }
  return decision;
}

/**
 * Gives a counted request back in both windows, and the answer's limit headers show the budget after
 * that: a free `304` (DESIGN.md §10), or a request refused uncharged after it was counted (§21). Called
 * before the answer's head is written; the refund's commands are on the Redis connection before the
 * client can send anything else.
 */
export function refundRequest(
  limiter: TwoWindowLimiter,
  subject: Subject,
  decision: Decision,
  res: ServerResponse,
): void {
  setLimitHeaders(res, refunded(decision));
  // The answer is on its way already: nothing here may fail the request.
  limiter.refund(subject, decision).catch(() => undefined);
}
