import {
  ConflictError,
  NotFoundError,
  toTimestamp,
  type Actor,
  type Delivery,
  type ListDeliveriesQuery,
} from '@community/contracts';
import { commitWithEvents, type TxDeps } from '@community/events';
import { sliceOf, type Page, type Slice } from '@community/http-kit';
import * as repo from '../db/deliveries.repository';
import type { DeliveryRow } from '../db/rows';
import { readEndpoint } from './endpoints';

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    message_id: row.messageId,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    response_status: row.responseStatus,
    duration_ms: row.durationMs,
    next_attempt_at: row.status === 'pending' && row.nextAttemptAt ? toTimestamp(row.nextAttemptAt) : null,
    created_at: toTimestamp(row.createdAt),
  };
}

export async function listDeliveries(
  deps: TxDeps,
  actor: Actor,
  endpointId: number,
  query: ListDeliveriesQuery,
): Promise<Page<Delivery>> {
  await readEndpoint(deps, actor, endpointId);
  const { page, limit, status } = query;
  const { rows, total } = await repo.listDeliveries(deps.sql, endpointId, status, limit, (page - 1) * limit);
  return { items: rows.map(toDelivery), totalItems: total, page, limit };
}

/** An endpoint's deliveries after the delivery `afterId` (a cursor walk, DESIGN.md §10). */
export async function listDeliveriesAfter(
  deps: TxDeps,
  actor: Actor,
  endpointId: number,
  query: ListDeliveriesQuery,
  afterId: number,
): Promise<Slice<Delivery>> {
  await readEndpoint(deps, actor, endpointId);
  const rows = await repo.deliveriesAfter(deps.sql, endpointId, query.status, afterId, query.limit + 1);
  return sliceOf(rows.map(toDelivery), query.limit);
}

/** Sends one delivery again, now, with the same webhook-id and a fresh retry schedule. */
export async function redeliver(
  deps: TxDeps,
  actor: Actor,
  endpointId: number,
  deliveryId: number,
): Promise<Delivery> {
  const endpoint = await readEndpoint(deps, actor, endpointId);
  if (!endpoint.enabled) throw new ConflictError('this endpoint is disabled; enable it before redelivering');
  return commitWithEvents(deps, async (tx) => {
    const delivery = await repo.findDelivery(tx, endpointId, deliveryId);
    if (!delivery) throw new NotFoundError('delivery');
    return toDelivery(await repo.requeue(tx, deliveryId));
  });
}
