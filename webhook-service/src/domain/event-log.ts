import {
  ConflictError,
  EVENT_RETENTION_DAYS,
  MAX_REPLAY_EVENTS,
  toTimestamp,
  ValidationError,
  type Actor,
  type EventLogEntry,
  type ListEventsQuery,
  type PingResult,
  type ReplayBody,
} from '@community/contracts';
import { assertScope } from '@community/access';
import { commitWithEvents, newEventId } from '@community/events';
import { sliceOf, type Page, type Slice } from '@community/http-kit';
import { recordPing } from '../db/deliveries.repository';
import * as log from '../db/events.repository';
import { sendWebhook, signingSecrets } from '../delivery/sender';
import { messageIdOf } from '../events/consumers';
import { lockEndpoint, readEndpoint, type EndpointDeps } from './endpoints';

/*
 * Pull and push (DESIGN.md §14): the log of public events with the webhook-ids endpoints received,
 * a signed test ping, and replays of a window under the original ids.
 */

const recent = (types?: string[]) => ({ types, days: EVENT_RETENTION_DAYS });

/** Each answered entry's place in the log, for the cursor that continues after it. */
const positions = new WeakMap<EventLogEntry, number>();
export const positionInLog = (entry: EventLogEntry) => positions.get(entry)!;

function toEntry(row: log.EventRow): EventLogEntry {
  const { event, timestamp, data } = JSON.parse(row.body) as Omit<EventLogEntry, 'id'>;
  const entry = { id: row.id, event, timestamp, data };
  positions.set(entry, row.seq);
  return entry;
}

/** The public events of the last 30 days, oldest first (scope `read`). */
export async function listEvents(
  deps: EndpointDeps,
  actor: Actor,
  query: ListEventsQuery,
): Promise<Page<EventLogEntry>> {
  assertScope(actor, 'read');
  const { page, limit, types } = query;
  const { rows, total } = await log.listEvents(deps.sql, recent(types), limit, (page - 1) * limit);
  return { items: rows.map(toEntry), totalItems: total, page, limit };
}

/** The events after the one at `seq` (a cursor walk), oldest first. */
export async function eventsAfter(
  deps: EndpointDeps,
  actor: Actor,
  query: ListEventsQuery,
  seq: number,
): Promise<Slice<EventLogEntry>> {
  assertScope(actor, 'read');
  const rows = await log.eventsAfter(deps.sql, recent(query.types), seq, query.limit + 1);
  return sliceOf(rows.map(toEntry), query.limit);
}

/** Where the event `id` stands in the log: `after=<id>` continues from it. */
export async function positionOf(deps: EndpointDeps, id: string): Promise<number> {
  const seq = await log.seqOf(deps.sql, id);
  if (seq === null)
    throw ValidationError.single(
      'after',
      'not_found',
      `after names no event of the last ${EVENT_RETENTION_DAYS} days`,
    );
  return seq;
}

/**
 * Sends the endpoint one signed `ping` now, exactly as deliveries are signed, through the same SSRF
 * guard and 10 s limit, with no retry; the attempt is the answer and goes into the delivery log.
 */
export async function pingEndpoint(
  deps: EndpointDeps,
  actor: Actor,
  endpointId: number,
): Promise<PingResult> {
  const endpoint = await readEndpoint(deps, actor, endpointId);
  const eventId = newEventId();
  const messageId = messageIdOf(eventId);
  const body = JSON.stringify({
    event: 'ping',
    timestamp: toTimestamp(new Date()),
    data: { webhook_id: endpoint.id },
  });
  const result = await sendWebhook({
    url: endpoint.url,
    messageId,
    body,
    secrets: signingSecrets(deps.box, endpoint),
    allowPrivate: deps.allowPrivate,
  });
  await recordPing(deps.sql, {
    endpointId,
    eventId,
    messageId,
    body,
    ok: result.ok,
    status: result.status,
    durationMs: result.durationMs,
    error: result.error,
  });
  return {
    status: result.ok ? 'succeeded' : 'failed',
    response_status: result.status,
    duration_ms: result.durationMs,
    ...(result.ok || result.error === null ? {} : { error: result.error }),
  };
}

/**
 * Queues every logged event of the window that the endpoint subscribes to (and `events` names)
 * again, under its original webhook-id. At most MAX_REPLAY_EVENTS a call. The dispatcher's fair
 * share per endpoint and per user keeps a large replay from delaying anyone else's deliveries.
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
    // Locked: a DELETE or a switch-off in flight finishes first, and nothing is queued behind it.
    const endpoint = await lockEndpoint(tx, actor, endpointId);
    if (!endpoint.enabled) throw new ConflictError('this endpoint is disabled; enable it before replaying');
    const wanted = body.events ?? endpoint.events;
    const window = {
      since: body.since,
      until,
      types: wanted.filter((type) => endpoint.events.includes(type)),
    };
    if ((await log.countWindow(tx, window, MAX_REPLAY_EVENTS)) > MAX_REPLAY_EVENTS) {
      const count = await log.countWindow(tx, window);
      throw new ValidationError([
        {
          field: 'since',
          code: 'too_big',
          message: `this window holds ${count} events, more than the ${MAX_REPLAY_EVENTS} one replay takes; replay it in smaller windows`,
        },
      ]);
    }
    return { queued: await log.queueReplay(tx, endpointId, window) };
  });
}
