import { spawn } from 'node:child_process';
import path from 'node:path';
import {
  createTestDatabase,
  freePort,
  testExchange,
  testInfra,
  waitFor,
  type TestDatabase,
} from '@community/test-harness';

const root = path.resolve(__dirname, '../../..');

/** Runs posts-service as `npm start` does: its own process, configured only by the environment. */
function runMain(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'posts-service/src/main.ts'],
    {
      cwd: root,
      env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

describe('posts-service process', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('process');
  });
  afterAll(() => database.drop());

  it('starts from the environment, drains on SIGTERM and exits 0', async () => {
    const port = await freePort();
    const run = runMain({
      DATABASE_URL: database.url,
      AMQP_URL: testInfra().amqpUrl,
      AMQP_EXCHANGE: testExchange('process'),
      INTERNAL_TOKEN: 'a-long-enough-internal-token',
      POSTS_SERVICE_PORT: String(port),
    });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok, {
      what: 'posts-service to be ready',
      timeoutMs: 20_000,
    });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    const lines = run
      .output()
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['posts-service stopping', 'posts-service stopped']),
    );
  }, 30_000);

  it('refuses to start with a bad variable, naming it in one line', async () => {
    const run = runMain({ DATABASE_URL: 'mysql://nope', INTERNAL_TOKEN: 'short' });
    expect(await run.exited).toBe(1);
    const { stderr } = run.output();
    expect(stderr.trim().split('\n').sort()).toEqual([
      'configuration error: DATABASE_URL: must be a postgres or postgresql URL',
      'configuration error: INTERNAL_TOKEN: must be at least 16 characters',
    ]);
  }, 30_000);

  it('says in one line which database is unreachable and which variable names it', async () => {
    const run = runMain({
      DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:1/community',
      INTERNAL_TOKEN: 'a-long-enough-internal-token',
    });
    expect(await run.exited).toBe(1);
    const { stderr } = run.output();
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^posts-service could not start: PostgreSQL is not reachable at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/community \(ECONNREFUSED\); check that it is running and that DATABASE_URL points at it$/,
    );
    expect(stderr).not.toContain('secret');
  }, 30_000);
});
