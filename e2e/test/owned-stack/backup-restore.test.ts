import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serviceSandbox, waitFor, type ServiceSandbox } from '@community/test-harness';
import { backup } from '../../../scripts/backup';
import { refusal, type Manifest } from '../../../scripts/backup/manifest';
import { restore } from '../../../scripts/restore';
import { expectStatus, type Call } from '../../src/client/http';
import { about, createComment, createPost, deliveredWhen, profileWhen, subscribe } from '../../src/flows';
import { WebhookReceiver } from '../../src/receiver';
import { startOwnedStack, type OwnedStack } from '../../src/stack/owned-stack';
import { UNLIMITED, World } from '../../src/world';

// DESIGN.md §16, issue 44: the backup drill. A backup taken while writes go on, restored into a new
// database, the stack started on it with the same SECRETS_KEY (kept beside the backup, not in it):
// everything committed before the snapshot is there and works, deliveries pending in the snapshot
// go out under their webhook-id, and an account erased after the snapshot is erased again.

const SECRETS_KEY = randomBytes(32).toString('base64');
const file = path.join(os.tmpdir(), `community-drill-${process.pid}-${Date.now()}.backup`);
let receiver: WebhookReceiver;
let first: OwnedStack | undefined;
let second: OwnedStack | undefined;
let sandboxes: ServiceSandbox[] = [];

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  sandboxes = [await serviceSandbox('e2e_drill_source'), await serviceSandbox('e2e_drill_restored')];
  first = await startOwnedStack('drill', { sandbox: sandboxes[0], env: { SECRETS_KEY } });
}, 120_000);

afterAll(async () => {
  // A stack drops its sandbox at stop; one never handed to a stack is dropped here.
  await second?.stop();
  await first?.stop();
  if (!second) await sandboxes[1]?.cleanup([]);
  await receiver?.close();
  rmSync(file, { force: true });
}, 90_000);

interface Written {
  posts: { id: number; comment_count: number; like_count: number }[];
}

/** Posts with comments and likes by `as` and a second member: what must come back, counts included. */
async function writeBefore(world: World, as: Call, category: number): Promise<Written> {
  const other = world.as(await world.member());
  const ids: number[] = [];
  for (let i = 0; i < 4; i++) {
    const post = await createPost(as, category, { title: `Drill ${i}` });
    for (let c = 0; c < i; c++) await createComment(other, post.id, `reply ${c}`);
    if (i % 2) expectStatus(await other('POST', `/api/v1/posts/${post.id}/like`), 200);
    ids.push(post.id);
  }
  const posts = [];
  for (const id of ids) posts.push(expectStatus(await as('GET', `/api/v1/posts/${id}`), 200).body.data);
  return { posts };
}

/** Posts written without pause while `during` runs: those answered before it began, and after it ended. */
async function writesDuring<T>(as: Call, category: number, during: () => Promise<T>) {
  const answered: { id: number; at: number }[] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) answered.push({ ...(await createPost(as, category)), at: Date.now() });
  })();
  await sleep(300);
  const began = Date.now();
  const result = await during();
  const ended = Date.now();
  await sleep(300);
  running = false;
  await loop;
  return {
    result,
    before: answered.filter((p) => p.at < began).map((p) => p.id),
    after: answered.filter((p) => p.at > ended + 50).map((p) => p.id),
  };
}

/** A post whose delivery fails (503) and waits for its retry when the snapshot is taken. */
async function pendingDelivery(as: Call, category: number) {
  receiver.setMode({ kind: 'status', status: 503 });
  const post = await createPost(as, category, { title: 'Pending at the snapshot' });
  return waitFor(
    () =>
      receiver.received.find(
        (r) => r.endpoint === 'drill' && r.answered === 503 && JSON.parse(r.rawBody).data?.id === post.id,
      ),
    { what: 'a failed attempt of the pending delivery', timeoutMs: 15_000, intervalMs: 100 },
  ).then((attempt) => ({ post, webhookId: attempt.webhookId }));
}

/** Restores into the second sandbox, the journal read from the source, and starts the stack on it. */
async function restoreAndStart(sourceUrl: string, admin: OwnedStack['admin']) {
  const started = Date.now();
  const restored = await restore(sandboxes[1]!.database.url, file, { erasuresFrom: sourceUrl });
  const restoreMs = Date.now() - started;
  await first!.stop();
  first = undefined;
  receiver.setMode({ kind: 'ok' });
  second = await startOwnedStack('drill_restored', { sandbox: sandboxes[1], env: { SECRETS_KEY }, admin });
  return { restored, restoreMs };
}

it('restores a backup taken under writes: data, keys, webhooks, counts, pending deliveries, erasures', async () => {
  const world = new World(first!.baseUrl, first!.admin);
  const category = await world.category();
  const author = await world.member({ plan: UNLIMITED });
  const leaver = await world.member();
  const as = world.as(author);
  await subscribe(as, receiver, 'drill', ['post.created']);
  const written = await writeBefore(world, as, category);
  const pending = await pendingDelivery(as, category);

  const started = Date.now();
  const {
    result: manifest,
    before,
    after,
  } = await writesDuring(as, category, () => backup(sandboxes[0]!.database.url, file));
  const backupMs = Date.now() - started;
  expectStatus(
    await world.as(leaver)('DELETE', '/api/v1/users/me', { body: { password: leaver.password } }),
    202,
  );
  const { restored, restoreMs } = await restoreAndStart(sandboxes[0]!.database.url, first!.admin);
  process.stdout.write(
    `backup drill: ${JSON.stringify({ backupMs, restoreMs, during: before.length, reapply: restored.reapply })}\n`,
  );
  expect(restored.reapply).toBe(1);

  const world2 = new World(second!.baseUrl, second!.admin);
  const as2 = world2.as(author);
  expect(expectStatus(await as2('GET', '/api/v1/users/me'), 200).body.data.id).toBe(author.id);
  for (const post of written.posts) {
    const now = expectStatus(await as2('GET', `/api/v1/posts/${post.id}`), 200).body.data;
    expect([now.comment_count, now.like_count]).toEqual([post.comment_count, post.like_count]);
  }
  for (const id of [pending.post.id, ...before]) expectStatus(await as2('GET', `/api/v1/posts/${id}`), 200);
  for (const id of after) expectStatus(await as2('GET', `/api/v1/posts/${id}`), 404);
  expect(manifest.erasedUserIds).not.toContain(leaver.id);

  // The delivery pending in the snapshot goes out under its webhook-id; a new post delivers, signed.
  const fresh = await createPost(as2, category, { title: 'After the restore' });
  await deliveredWhen(receiver, 'drill', (d) => about(d, 'post.created', fresh.id).length > 0, 30_000);
  const again = await deliveredWhen(
    receiver,
    'drill',
    (d) => about(d, 'post.created', pending.post.id)[0],
    30_000,
  );
  expect(again.webhookId).toBe(pending.webhookId);
  // The account erased after the snapshot is erased again.
  await profileWhen(as2, leaver.id, (u) => u.username === `deleted-${leaver.id}`, 30_000);
  expect((await world2.as(leaver)('GET', '/api/v1/users/me')).status).toBe(401);

  // The same backup again into the now non-empty database, and a newer release's, are refused.
  await expect(restore(sandboxes[1]!.database.url, file)).rejects.toThrow(/is not empty/);
  const newer: Manifest = { ...manifest, release: '9.0.0' };
  expect(refusal(newer)).toMatch(/newer than this code/);
  const unknown = { ...manifest, migrations: { ...manifest.migrations, posts: ['9999_future.sql'] } };
  expect(refusal(unknown)).toMatch(/posts\/9999_future.sql/);
}, 300_000);
