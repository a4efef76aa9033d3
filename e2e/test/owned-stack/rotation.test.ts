import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { signIdentity } from '@community/http-kit';
import { actor, waitFor } from '@community/test-harness';
import { about, createPost, deliveredWhen, subscribe } from '../../src/flows';
import type { OwnedStack } from '../../src/stack/owned-stack';
import type { ServiceName, ServiceProcess } from '../../src/stack/service-process';
import { PlainClient, type Caller } from '../../src/steady-traffic';
import { openOwnedTarget, type Target } from '../../src/target';
import { UNLIMITED, type Member } from '../../src/world';

// DESIGN.md §16, issue 44: the INTERNAL_TOKEN and SECRETS_KEY runbooks of docs/operations.md, followed
// on a two-replica stack under steady traffic from clients that never retry: (1) every verifier also
// accepts the new token / opens with the new key (as *_PREVIOUS); (2) every process signs / seals
// with the new one, the old one as *_PREVIOUS, and webhook secrets move to the new key in the
// background until webhook_secrets_pending_reencryption is 0; (3) *_PREVIOUS removed. No request
// fails, deliveries go on signed with secrets that open, and the old token is refused at the end.

const CLIENTS = 3;
const SERVICES: ServiceName[] = ['posts', 'users', 'webhooks'];

let target: Target & { owned: OwnedStack };
beforeAll(async () => {
  // Small pools: two of everything stay well under PostgreSQL's 100 connections beside another file.
  const env = { SHUTDOWN_DELAY_MS: '5000', DB_POOL_MAX: '4' };
  target = await openOwnedTarget('rotation', { replicas: 2, env });
}, 180_000);
afterAll(() => target?.close(), 90_000);

const newKey = () => randomBytes(32).toString('base64');

/** Restarts each process of `names` in turn (SIGTERM, drained, a new one ready) with `env` changed. */
async function roll(names: ServiceName[], env: (p: ServiceProcess) => NodeJS.ProcessEnv) {
  for (const name of names)
    for (const p of target.owned.replicas[name]) {
      const next: NodeJS.ProcessEnv = { ...p.spec.env, ...env(p) };
      for (const [k, v] of Object.entries(next)) if (v === undefined) delete next[k];
      p.spec.env = next;
      expect(await p.replace()).toBe(0);
    }
}

/** `webhook_secrets_pending_reencryption` as a webhook-service process reports it. */
async function pendingReencryption(p: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${p.url}/metrics`)).text();
  return Number(/^webhook_secrets_pending_reencryption(?:{[^}]*})? (\d+)$/m.exec(text)?.[1] ?? NaN);
}

/** The three steps of both runbooks, from (token, key) to (newToken, newSecretsKey). */
async function rotate(old: { token: string; key: string }, next: { token: string; key: string }) {
  const steps: number[] = [];
  const at = Date.now();
  await roll(SERVICES, () => ({ INTERNAL_TOKEN_PREVIOUS: next.token, SECRETS_KEY_PREVIOUS: next.key }));
  steps.push(Date.now() - at);
  await roll([...SERVICES, 'gateway'], () => ({
    ...{ INTERNAL_TOKEN: next.token, INTERNAL_TOKEN_PREVIOUS: old.token },
    ...{ SECRETS_KEY: next.key, SECRETS_KEY_PREVIOUS: old.key },
  }));
  steps.push(Date.now() - at);
  for (const p of target.owned.replicas.webhooks)
    await waitFor(async () => (await pendingReencryption(p)) === 0 || undefined, {
      what: 'every webhook secret sealed with the new key',
      timeoutMs: 30_000,
      intervalMs: 500,
    });
  await roll(SERVICES, () => ({ INTERNAL_TOKEN_PREVIOUS: undefined, SECRETS_KEY_PREVIOUS: undefined }));
  steps.push(Date.now() - at);
  return steps;
}

/** Steady rounds of `me` until stopped: a list, a keyed post, a read, its account, its webhooks. */
async function rounds(client: PlainClient, me: Member, category: number, running: () => boolean) {
  const as: Caller = { key: me.key, ip: me.ip };
  for (let n = 1; running(); n++) {
    await client.call(as, 'list', ['GET', '/api/v1/posts?limit=5', 200]);
    const created = await client.call(as, 'keyed post', ['POST', '/api/v1/posts', 201], {
      body: { title: `Rotation ${me.username} ${n}`, content: 'steady', category_id: category },
      headers: { 'idempotency-key': `rot-${me.id}-${n}` },
    });
    if (created.body?.data?.id)
      await client.call(as, 'read', ['GET', `/api/v1/posts/${created.body.data.id}`, 200]);
    await client.call(as, 'me', ['GET', '/api/v1/users/me', 200]);
    await client.call(as, 'webhooks', ['GET', '/api/v1/webhooks', 200]);
    await sleep(50);
  }
}

it('rotates INTERNAL_TOKEN and SECRETS_KEY under traffic: no failed request, deliveries go on, the old token is refused', async () => {
  const { world, receiver, owned } = target;
  const category = await world.category();
  const watcher = world.as(await world.member());
  for (let i = 0; i < 5; i++) await subscribe(watcher, receiver, `rot${i}`, ['post.created']);
  const writers = await Promise.all(Array.from({ length: CLIENTS }, () => world.member({ plan: UNLIMITED })));
  const clients = writers.map(() => new PlainClient(target.baseUrl));
  const old = {
    token: owned.services.posts.spec.env.INTERNAL_TOKEN!,
    key: owned.services.webhooks.spec.env.SECRETS_KEY!,
  };
  const next = { token: randomBytes(32).toString('base64url'), key: newKey() };

  let running = true;
  const loops = writers.map((w, i) => rounds(clients[i]!, w, category, () => running));
  let steps: number[];
  try {
    await sleep(2_000);
    steps = await rotate(old, next);
    await sleep(2_000);
  } finally {
    running = false;
    await Promise.all(loops);
    await Promise.all(clients.map((c) => c.close()));
  }
  const sent = clients.flatMap((c) => c.sent);
  const failed = sent.filter((s) => s.status !== s.expected);
  process.stdout.write(
    `rotation: ${JSON.stringify({ requests: sent.length, failed: failed.length, stepsMs: steps })}\n`,
  );
  expect(failed.slice(0, 10)).toEqual([]);

  // Deliveries after the rotation are signed with secrets that open under the new key alone.
  const post = await createPost(watcher, category, { title: 'After both rotations' });
  for (let i = 0; i < 5; i++)
    await deliveredWhen(receiver, `rot${i}`, (d) => about(d, 'post.created', post.id).length > 0, 30_000);
  // The old token is refused by the services; the new one accepted.
  const reader = actor(writers[0]!.id, 'member', ['read']);
  const signedWith = (token: string) =>
    fetch(`${owned.services.posts.url}/api/v1/posts?limit=1`, {
      headers: signIdentity(token, { method: 'GET', url: '/api/v1/posts?limit=1', actor: reader }),
    }).then((r) => r.status);
  expect(await signedWith(old.token)).toBe(401);
  expect(await signedWith(next.token)).toBe(200);
}, 420_000);
