import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { actor } from '@community/test-harness';
import { start as startGateway, type GatewayService } from '../../src/start';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

// DESIGN.md §21: an account may have only so many requests in flight — admitted by the gateway and
// not yet answered in full or abandoned — per plan (free 8); more is 429 concurrency_limited with
// Retry-After: 1, uncharged. The cheapest way to hold requests in flight is to send a body slowly.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('gw-in-flight', { IN_FLIGHT_LIMITS: 'anonymous:3' });
}, 60_000);
afterAll(() => stack.stop());

const sockets: net.Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** A POST whose body never finishes arriving: in flight until its socket closes. */
async function hold(gateway: string, key?: string): Promise<{ socket: net.Socket; answer: () => string }> {
  const { port } = new URL(gateway);
  const socket = net.connect({ port: Number(port), host: '127.0.0.1' });
  sockets.push(socket);
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', () => {});
  // Without a key, registration: the one API write that needs none.
  const [path, auth] = key
    ? ['/api/v1/posts', `Authorization: Bearer ${key}\r\n`]
    : ['/api/v1/auth/register', ''];
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
  );
  return { socket, answer: () => received };
}

async function holdMany(gateways: string[], count: number, key?: string) {
  const held = [];
  for (let i = 0; i < count; i++) held.push(await hold(gateways[i % gateways.length]!, key));
  // Every one is admitted or refused by now (a refusal answers at once).
  await sleep(500);
  return held;
}

const refused = (answer: string) =>
  answer.startsWith('HTTP/1.1 429') && answer.includes('concurrency_limited');

describe('requests in flight per account', () => {
  it('refuses a free account its 9th request in flight with 429 concurrency_limited, uncharged', async () => {
    const member = await memberWithKey(stack);
    const held = await holdMany([stack.gateway], 8, member.key);
    expect(held.map((h) => h.answer())).toEqual(Array(8).fill(''));

    const before = await gw(stack, 'GET', '/api/v1/categories', {
      key: (await memberWithKey(stack)).key,
    });
    expect(before.status).toBe(200);
    const ninth = await gw(stack, 'GET', '/api/v1/posts', { key: member.key });
    expect(ninth.status).toBe(429);
    expect(ninth.body).toMatchObject({ error: 'concurrency_limited', retry_after: 1 });
    expect(ninth.headers.get('retry-after')).toBe('1');
    // Uncharged: the budget shows all 8 held ones counted, and not this one.
    expect(ninth.headers.get('x-ratelimit-remaining')).toBe('92');

    held[0]!.socket.destroy();
    await sleep(200);
    const next = await gw(stack, 'GET', '/api/v1/posts', { key: member.key });
    expect(next.status).toBe(200);
  });

  it('counts every key of the account together, and another account not at all', async () => {
    const member = await memberWithKey(stack);
    const second = await stack.users(actor(member.id, 'member', ['read', 'write', 'keys']), 'POST', '/keys', {
      body: { name: 'second', scopes: ['read'] },
    });
    await holdMany([stack.gateway], 8, member.key);
    const other = await gw(stack, 'GET', '/api/v1/posts', { key: second.body.data.key });
    expect(other.status).toBe(429);
    const bystander = await gw(stack, 'GET', '/api/v1/posts', { key: (await memberWithKey(stack)).key });
    expect(bystander.status).toBe(200);
  });

  it('holds callers without a key to the anonymous cap per address', async () => {
    const held = await holdMany([stack.gateway], 4);
    expect(held.filter((h) => refused(h.answer()))).toHaveLength(1);
  });

  it('frees the slot of a client that gave up', async () => {
    const member = await memberWithKey(stack);
    const held = await holdMany([stack.gateway], 8, member.key);
    for (const h of held) h.socket.destroy();
    await sleep(200);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => gw(stack, 'GET', '/api/v1/categories', { key: member.key })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
  });
});

describe('across two gateways', () => {
  let second: GatewayService;
  beforeAll(async () => {
    await stack.restartGateway({ GATEWAY_REPLICAS: '2' });
    second = await startGateway({ ...stack.config, GATEWAY_PORT: 0 });
  });
  afterAll(() => second.stop());

  it('holds a free account to at most cap + 1 in flight over both (each gateway admits one on its own)', async () => {
    const member = await memberWithKey(stack);
    const held = await holdMany([stack.gateway, second.url], 12, member.key);
    const admitted = held.filter((h) => h.answer() === '');
    expect(admitted).toHaveLength(9);
    expect(held.filter((h) => refused(h.answer()))).toHaveLength(3);
  });
});

describe('a refusal before the body was read', () => {
  it('closes the connection soon after, so a body that never finishes holds no socket', async () => {
    const member = await memberWithKey(stack);
    await holdMany([stack.gateway], 8, member.key);
    const refused = await hold(stack.gateway, member.key);
    const closed = new Promise<number>((resolve) => {
      const started = Date.now();
      refused.socket.once('close', () => resolve(Date.now() - started));
    });
    expect(await closed).toBeLessThan(4_000);
    expect(refused.answer()).toMatch(/^HTTP\/1\.1 429/);
    expect(refused.answer()).toMatch(/connection: close/i);
  });
});
