import { EXPORT_PARTS, toTimestamp, type Actor, type ExportedGrant } from '@community/contracts';
import type { Sql } from '@community/db';
import { JsonStream } from '@community/http-kit';
import type { Response } from 'express';
import { grantsOf } from '../../db/export.repository';
import { listNotifications } from '../../db/notifications.repository';
import { listKeys } from '../keys/manage-keys';
import { toNotification } from '../notifications/announce';
import { listApps } from '../oauth/manage-apps';
import { readMe } from '../users/read-users';
import { openPart, type ExportSources } from './remote-parts';

/*
 * The export (DESIGN.md §20): everything the platform holds about the caller as one JSON document in
 * the envelope, streamed — this service's parts, then those of posts-service and webhook-service
 * relayed as they arrive — so no part is ever whole in memory. Never a secret, no `ETag`.
 */

const NOTIFICATION_BATCH = 500;

export interface ExportDeps {
  sql: Sql;
  sources: ExportSources;
}

export async function streamExport(deps: ExportDeps, actor: Actor, res: Response, base: string) {
  const { postsUrl, webhooksUrl, internalToken } = deps.sources;
  const open = (url: string, part: string) => openPart(url, `/internal/export/${part}`, actor, internalToken);
  // Asked before anything is sent: a service that is down is a 503, not a document cut short.
  const [webhooks, firstPosts] = await Promise.all([open(webhooksUrl, 'webhooks'), open(postsUrl, 'posts')]);
  const out = new JsonStream(res);
  out.begin();
  const head = {
    exported_at: toTimestamp(new Date()),
    profile: await readMe(deps.sql, actor.userId, base),
    keys: await listKeys(deps.sql, actor.userId),
    oauth_apps: await listApps(deps.sql, actor.userId),
    oauth_grants: (await grantsOf(deps.sql, actor.userId)).map(toGrant),
  };
  await out.write(`{"success":true,"data":${JSON.stringify(head).slice(0, -1)},"notifications":`);
  await out.array(notificationsOf(deps.sql, actor.userId), toNotification);
  for (const part of EXPORT_PARTS.posts) {
    await out.write(`,${JSON.stringify(part)}:`);
    await out.relay(part === 'posts' ? firstPosts : await open(postsUrl, part));
  }
  await out.write(',"webhooks":');
  await out.relay(webhooks);
  await out.write('}}');
  out.end();
}

async function* notificationsOf(sql: Sql, userId: number) {
  for (let offset = 0; ; offset += NOTIFICATION_BATCH) {
    const { rows } = await listNotifications(sql, userId, {
      unread: false,
      limit: NOTIFICATION_BATCH,
      offset,
    });
    yield rows;
    if (rows.length < NOTIFICATION_BATCH) return;
  }
}

const toGrant = (row: Awaited<ReturnType<typeof grantsOf>>[number]): ExportedGrant => ({
  app_id: row.appId,
  app_name: row.appName,
  scopes: row.scopes,
  created_at: toTimestamp(row.createdAt),
  revoked_at: row.revokedAt ? toTimestamp(row.revokedAt) : null,
});
