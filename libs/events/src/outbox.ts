import { afterCommit, inTransaction, type Sql, type Tx } from '@community/db';
import { activeTraceparent } from '@community/telemetry';
import type postgres from 'postgres';
import { createEnvelope, type EventEnvelope } from './envelope';

/**
 * Records an event in the outbox inside the caller's transaction, so the state change and its event
 * commit or roll back together; the relay publishes it after the commit.
 */
export async function enqueueEvent<T>(tx: Tx, event: string, data: T): Promise<EventEnvelope<T>> {
  const envelope = createEnvelope(event, data);
  await tx`
    insert into outbox (event_id, event, payload, traceparent)
    values (${envelope.id}, ${event}, ${tx.json(envelope as unknown as postgres.JSONValue)},
      ${activeTraceparent() ?? null})`;
  return envelope;
}

/** What a use case needs to write: the pool, and a hook run after each commit (the relay's kick). */
export interface TxDeps {
  sql: Sql;
  afterCommit: () => void;
}

/**
 * Runs `work` in one transaction, the change and its outbox events committing together or not at
 * all, then wakes the relay so they go out at once. (`inTransaction` of @community/db is the plain
 * transaction, with no events and no relay.)
 */
export async function commitWithEvents<T>(deps: TxDeps, work: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await inTransaction(deps.sql, work);
  // In an ambient transaction (an idempotent request) the relay waits for the outer commit.
  afterCommit(deps.sql, deps.afterCommit);
  return result;
}

/**
 * How long a published outbox row is kept. Its payload may name a member (DESIGN.md §20); the relay
 * never reads a published row again, so a week only serves someone investigating a delivery.
 */
export const OUTBOX_RETENTION_DAYS = 7;

/** Deletes up to `batch` published rows older than the retention, oldest first; returns how many. */
export async function prunePublishedOutbox(
  sql: Sql,
  batch = 1000,
  retentionDays = OUTBOX_RETENTION_DAYS,
): Promise<number> {
  const rows = await sql`
    delete from outbox where id in (
      select id from outbox
      where published_at is not null and created_at < now() - make_interval(days => ${retentionDays})
      order by created_at limit ${batch})
    returning 1`;
  return rows.length;
}
