import {
  EVENT_RETENTION_DAYS,
  toTimestamp,
  ValidationError,
  type Actor,
  type EventLogEntry,
  type ListEventsQuery,
  type PingResult,
} from '@community/contracts';
import { assertScope } from '@community/access';
import { newEventId } from '@community/events';
import { sliceOf, type Page, type Slice } from '@community/http-kit';
import { recordPing } from '../db/deliveries.repository';
import { setLane } from '../db/endpoints.repository';
import * as log from '../db/events.repository';
import { readEndpoint, type EndpointDeps } from './endpoints';
import { answeredInTime } from './lanes';
import { messageIdOf } from './message-id';
import { signingSecrets } from './secret-box';

/*
 * Pull and push (DESIGN.md §14): the log of public events with the webhook-ids endpoints received,
 * and a signed test ping. Replays of a window under the original ids are in replay.ts.
 */

/**
 * How long a test ping waits for its receiver (DESIGN.md §21): well within the gateway's 10 s
 * upstream timeout, so no receiver can keep a request open long enough to open its breaker.
 */
export const PING_TIMEOUT_MS = 5_000;

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
 * guard, giving up after PING_TIMEOUT_MS, with no retry; the attempt is the answer, goes into the
 * delivery log and sets the endpoint's lane.
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
  const result = await deps.outbound.send({
    url: endpoint.url,
    messageId,
    body,
    secrets: signingSecrets(deps.box, endpoint),
    allowPrivate: deps.allowPrivate,
    timeoutMs: PING_TIMEOUT_MS,
  });
  await Promise.all([
    recordPing(deps.sql, {
      endpointId,
      eventId,
      messageId,
      body,
      ok: result.ok,
      status: result.status,
      durationMs: result.durationMs,
      error: result.error,
    }),
    // A ping counts like any attempt for the lane: a receiver that answers it is in the fast lane.
    setLane(deps.sql, endpointId, answeredInTime(result)),
  ]);
  return {
    status: result.ok ? 'succeeded' : 'failed',
    response_status: result.status,
    duration_ms: result.durationMs,
    ...(result.ok || result.error === null ? {} : { error: result.error }),
  };
}
