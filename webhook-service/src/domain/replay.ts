import { assertScope } from '@community/access';
import {
  ConflictError,
  MAX_REPLAY_EVENTS,
  RateLimitedError,
  ReplayInProgressError,
  ValidationError,
  type Actor,
  type ReplayBody,
} from '@community/contracts';
import type { Tx } from '@community/db';
import { commitWithEvents } from '@community/events';
import * as log from '../db/events.repository';
import * as replays from '../db/replays.repository';
import type { EndpointRow } from '../db/rows';
import { lockEndpoint, type EndpointDeps } from './endpoints';
import {
  accountDeliveriesLeft,
  accountWaitSeconds,
  endpointWaitSeconds,
  REPLAY_WINDOW_SECONDS,
  REPLAYED_DELIVERIES_PER_ACCOUNT,
  REPLAYS_PER_ENDPOINT,
} from './replay-allowance';

/**
 * Queues every logged event of the window that the endpoint subscribes to (and `events` names)
 * again, under its original webhook-id (DESIGN.md §14), within the bounds of §21: one replay at a
 * time per endpoint, 3 per endpoint and 20,000 replayed deliveries per account in any 24 hours, at
 * most MAX_REPLAY_EVENTS a call. Decided and recorded in one transaction under the account's replay
 * lock, so parallel replays are counted one after another. The dispatcher's fair share keeps what
 * is queued from delaying anyone else's deliveries.
 */
export async function replay(
  deps: EndpointDeps,
  actor: Actor,
  endpointId: number,
  body: ReplayBody,
): Promise<{ queued: number }> {
  assertScope(actor, 'webhooks');
  const until = body.until ?? new Date();
  return commitWithEvents(deps, async (tx) => {
    await replays.lockAccountReplays(tx, actor.userId);
    // Locked: a DELETE or a switch-off in flight finishes first, and nothing is queued behind it.
    const endpoint = await lockEndpoint(tx, actor, endpointId);
    if (!endpoint.enabled) throw new ConflictError('this endpoint is disabled; enable it before replaying');
    if (await replays.isReplaying(tx, endpointId)) throw new ReplayInProgressError();
    const history = await replays.replaysWithin(tx, actor.userId, REPLAY_WINDOW_SECONDS);
    assertEndpointAllowance(history, endpointId);
    const window = windowOf(endpoint, body, until);
    const { count, lastSeq } = await log.countWindow(tx, window, MAX_REPLAY_EVENTS);
    if (count > MAX_REPLAY_EVENTS) throw await tooBig(tx, window);
    if (lastSeq === null) return { queued: 0 };
    assertAccountAllowance(history, count);
    const id = await replays.recordReplay(tx, { endpointId, userId: actor.userId, queued: count });
    return { queued: await log.queueReplay(tx, endpointId, window, { id, lastSeq }) };
  });
}

function windowOf(endpoint: EndpointRow, body: ReplayBody, until: Date): log.EventWindow {
  const wanted = body.events ?? endpoint.events;
  return { since: body.since, until, types: wanted.filter((type) => endpoint.events.includes(type)) };
}

async function tooBig(tx: Tx, window: log.EventWindow): Promise<ValidationError> {
  const { count } = await log.countWindow(tx, window);
  return ValidationError.single(
    'since',
    'too_big',
    `this window holds ${count} events, more than the ${MAX_REPLAY_EVENTS} one replay takes; replay it in smaller windows`,
  );
}

function assertEndpointAllowance(history: replays.PastReplay[], endpointId: number): void {
  const wait = endpointWaitSeconds(history, endpointId);
  if (wait === 0) return;
  throw new RateLimitedError(
    `this endpoint has had ${REPLAYS_PER_ENDPOINT} replays in the last 24 hours, the most allowed; retry in ${wait} seconds`,
    wait,
    'replay_limited',
  );
}

function assertAccountAllowance(history: replays.PastReplay[], count: number): void {
  const wait = accountWaitSeconds(history, count);
  if (wait === 0) return;
  const left = Math.max(0, accountDeliveriesLeft(history));
  throw new RateLimitedError(
    `this replay would queue ${count} deliveries and your account has ${left} of its ${REPLAYED_DELIVERIES_PER_ACCOUNT} replayed deliveries per 24 hours left; retry in ${wait} seconds or replay a smaller window`,
    wait,
    'replay_limited',
  );
}
