import { randomBytes } from 'node:crypto';
import { assertScope } from '@community/access';
import {
  ConflictError,
  deleted,
  MAX_WEBHOOKS_PER_USER,
  NotFoundError,
  toTimestamp,
  ValidationError,
  type Actor,
  type CreateWebhookBody,
  type Deleted,
  type UpdateWebhookBody,
  type Webhook,
} from '@community/contracts';
import { commitWithEvents, type TxDeps } from '@community/events';
import type { Sql, Tx } from '@community/db';
import { cancelPending } from '../db/deliveries.repository';
import * as repo from '../db/endpoints.repository';
import type { EndpointRow } from '../db/rows';
import type { Outbound } from './outbound';
import type { SecretBox } from './secret-box';

export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

export interface EndpointDeps extends TxDeps {
  allowPrivate: boolean;
  /** Seals signing secrets before they are stored. */
  box: SecretBox;
  /** Checks a URL before it is stored, and sends pings. */
  outbound: Outbound;
}

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export function toWebhook(row: EndpointRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    created_at: toTimestamp(row.createdAt),
    updated_at: toTimestamp(row.updatedAt),
  };
}

async function assertDeliverableUrl(deps: EndpointDeps, url: string): Promise<void> {
  const verdict = await deps.outbound.checkUrl(url, deps.allowPrivate);
  if (!verdict.ok)
    throw ValidationError.single('url', verdict.code, `url ${verdict.message.replace(/^url /, '')}`);
}

export async function createEndpoint(deps: EndpointDeps, actor: Actor, body: CreateWebhookBody) {
  assertScope(actor, 'webhooks');
  await assertDeliverableUrl(deps, body.url);
  const secret = newSecret();
  const row = await commitWithEvents(deps, async (tx) => {
    if ((await repo.countEndpointsLocked(tx, actor.userId)) >= MAX_WEBHOOKS_PER_USER) {
      throw new ConflictError(
        `you already have ${MAX_WEBHOOKS_PER_USER} webhook endpoints; delete one first`,
      );
    }
    return repo.insertEndpoint(tx, {
      userId: actor.userId,
      url: body.url,
      events: body.events,
      description: body.description ?? '',
      secret: deps.box.seal(secret),
    });
  });
  // The only answers that show the secret: here and on rotation. The database holds it sealed.
  return { ...toWebhook(row), secret };
}

/** A page of the caller's own endpoints. */
export async function listOwnEndpoints(deps: TxDeps, actor: Actor, page: number, limit: number) {
  assertScope(actor, 'webhooks');
  const { rows, total } = await repo.listEndpoints(deps.sql, actor.userId, limit, (page - 1) * limit);
  return { items: rows.map(toWebhook), totalItems: total, page, limit };
}

/** Every live endpoint of the account, for its export (DESIGN.md §20): never a secret. */
export async function exportEndpoints(sql: Sql, userId: number): Promise<Webhook[]> {
  const { rows } = await repo.listEndpoints(sql, userId, MAX_WEBHOOKS_PER_USER, 0);
  return rows.map(toWebhook);
}

export async function readEndpoint(deps: TxDeps, actor: Actor, id: number): Promise<EndpointRow> {
  assertScope(actor, 'webhooks');
  const row = await repo.findEndpoint(deps.sql, actor.userId, id);
  if (!row) throw new NotFoundError('webhook');
  return row;
}

/**
 * A live endpoint of the actor, locked until the transaction ends: a change to it, or to its
 * deliveries, waits for a DELETE in flight and then finds it gone.
 */
export async function lockEndpoint(tx: Tx, actor: Actor, id: number): Promise<EndpointRow> {
  const row = await repo.findEndpoint(tx, actor.userId, id, { forUpdate: true });
  if (!row) throw new NotFoundError('webhook');
  return row;
}

export async function updateEndpoint(deps: EndpointDeps, actor: Actor, id: number, body: UpdateWebhookBody) {
  assertScope(actor, 'webhooks');
  if (Object.values(body).every((value) => value === undefined)) {
    throw ValidationError.single('body', 'required', 'body must contain at least one field to change');
  }
  if (body.url !== undefined) await assertDeliverableUrl(deps, body.url);
  return commitWithEvents(deps, async (tx) => {
    await lockEndpoint(tx, actor, id);
    const row = await repo.updateEndpoint(tx, id, body);
    // Turned off: its backlog will never be sent (turning it on again starts from new events).
    if (!row.enabled) await cancelPending(tx, id);
    return toWebhook(row);
  });
}

export async function deleteEndpoint(deps: TxDeps, actor: Actor, id: number): Promise<Deleted> {
  assertScope(actor, 'webhooks');
  return commitWithEvents(deps, async (tx) => {
    await lockEndpoint(tx, actor, id);
    await repo.softDeleteEndpoint(tx, id);
    await cancelPending(tx, id);
    return deleted(id);
  });
}

/** A new secret; the old one (still sealed) keeps signing beside it for 24 h so receivers can switch over. */
export async function rotateEndpointSecret(deps: EndpointDeps, actor: Actor, id: number) {
  assertScope(actor, 'webhooks');
  return commitWithEvents(deps, async (tx) => {
    await lockEndpoint(tx, actor, id);
    const secret = newSecret();
    const row = await repo.rotateSecret(tx, id, deps.box.seal(secret), ROTATION_OVERLAP_SECONDS);
    return { id, secret, previous_secret_expires_at: toTimestamp(row.previousSecretExpiresAt!) };
  });
}
