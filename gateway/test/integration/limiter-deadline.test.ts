import { createServer, type AddressInfo, type Socket } from 'node:net';
import Redis from 'ioredis';
import { redisPrefix, testInfra } from '@community/test-harness';
import type { Subject } from '../../src/limits/decision';
import { TwoWindowLimiter } from '../../src/limits/limiter';

// A Redis answer that came in time must count, even when this process was too busy to read it by
// the deadline. Seen in the two-of-everything suite on a loaded machine: both gateways' event loops
// stalled past the command timeout during a burst, every command in flight "timed out" though
// Redis had answered, and the in-memory fallback let a free account through 130 times of 130.

const subject = (key: string): Subject => ({ key, kind: 'account', hourly: 100, daily: 1000 });

/** Keeps this thread busy, as CPU starvation or a long garbage collection does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

let redis: Redis;
beforeAll(async () => {
  // As the gateway makes it (start.ts), with its command timeout far away.
  redis = new Redis(testInfra().redisUrl, { enableOfflineQueue: false, commandTimeout: 5_000 });
  await new Promise((resolve) => redis.once('ready', resolve));
});
afterAll(() => redis.disconnect());

it('counts in Redis when the answer arrived in time but the process read it after the deadline', async () => {
  const limiter = new TwoWindowLimiter(redis, redisPrefix('deadline'), { replicas: 2, deadlineMs: 100 });
  // Redis has the script after this, so the counted request below is one round trip.
  await limiter.admit(subject('acct:warm'));

  const burst = Array.from({ length: 20 }, () => limiter.admit(subject('acct:1')));
  stall(400);
  const decisions = await Promise.all(burst);
  // The Redis budget (100), not the fallback's 100 ÷ 2, and one count per request.
  expect(decisions.map((d) => d.shown.limit)).toEqual(Array(20).fill(100));
  expect(decisions.map((d) => d.shown.remaining).sort((a, b) => b - a)).toEqual(
    Array.from({ length: 20 }, (_, i) => 99 - i),
  );
  // Nothing sent it to memory for a cool-off: the next one counts in Redis too.
  expect((await limiter.admit(subject('acct:1'))).shown).toMatchObject({ limit: 100, remaining: 79 });
});

it('gives up on Redis after the deadline when no answer comes', async () => {
  // A listener that takes the connection and never answers: Redis hung.
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const hung = new Redis({
    port,
    host: '127.0.0.1',
    enableReadyCheck: false,
    enableOfflineQueue: false,
    commandTimeout: 5_000,
  });
  try {
    await new Promise((resolve) => hung.once('ready', resolve));
    const limiter = new TwoWindowLimiter(hung, 'deadline-hung:', { replicas: 2, deadlineMs: 100 });
    const started = performance.now();
    const decision = await limiter.admit(subject('acct:2'));
    expect(performance.now() - started).toBeLessThan(1_000);
    // The fallback's share of the budget, while Redis is away.
    expect(decision.shown).toMatchObject({ limit: 50, remaining: 49 });
  } finally {
    hung.disconnect();
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});
