import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { freePort, redisPrefix, testInfra, waitFor } from '@community/test-harness';

// DESIGN.md §16: a gateway given SIGTERM says so on /readyz at once, goes on serving for
// SHUTDOWN_DELAY_MS — each answer closing its connection, so clients move to another process —
// then stops accepting, drains and exits 0.

const SHUTDOWN_DELAY_MS = 1_000;

it('answers /readyz 503 at SIGTERM, serves on for SHUTDOWN_DELAY_MS, then exits 0', async () => {
  const port = await freePort();
  const infra = testInfra();
  const gateway = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', path.join(__dirname, '../../src/main.ts')],
    {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        LOG_LEVEL: 'silent',
        GATEWAY_PORT: String(port),
        INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
        REDIS_URL: infra.redisUrl,
        REDIS_PREFIX: redisPrefix('shutdown'),
        AMQP_URL: infra.amqpUrl,
        SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
        SHUTDOWN_GRACE_MS: '500',
      },
      stdio: 'ignore',
    },
  );
  const exited = new Promise<number | null>((resolve) => gateway.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () =>
        (await fetch(`${url}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 200 || undefined,
      { what: 'the gateway ready', timeoutMs: 30_000, intervalMs: 100 },
    );
    const signalled = Date.now();
    gateway.kill('SIGTERM');
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 503 || undefined, {
      what: '/readyz 503',
      timeoutMs: 300,
      intervalMs: 10,
    });
    // Still serving, on a connection that closes after the answer.
    const index = await fetch(`${url}/healthz`);
    expect([index.status, index.headers.get('connection')]).toEqual([200, 'close']);
    await index.arrayBuffer();
    expect(Date.now() - signalled).toBeLessThan(SHUTDOWN_DELAY_MS);
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(SHUTDOWN_DELAY_MS);
    await expect(fetch(`${url}/readyz`)).rejects.toThrow();
  } finally {
    gateway.kill('SIGKILL');
  }
}, 60_000);
