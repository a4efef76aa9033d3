import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { waitFor } from '@community/test-harness';
import { expectStatus } from '../../src/client/http';
import {
  composeContainers,
  composeProject,
  execIn,
  recreateService,
  rollService,
  type Rolled,
  type ComposeContainer,
} from '../../src/compose';
import { subscribe } from '../../src/flows';
import { openTarget, targetOfFile } from '../../src/target';
import { postAndList, runTraffic, type Outcome } from '../../src/traffic';
import { UNLIMITED } from '../../src/world';

// The password runbooks of docs/operations.md ("Rotating secrets"), followed on the compose stack,
// where the passwords are real, while clients write and read. Runs only inside
// `npm run test:containers`, last: it changes the stack's secrets.
const project = composeProject()!;
if (!project) throw new Error('set E2E_COMPOSE_PROJECT to the compose project behind E2E_BASE_URL');
const envFile = process.env.E2E_COMPOSE_ENV_FILE;
if (!envFile) throw new Error('set E2E_COMPOSE_ENV_FILE to the .env the stack was started with');

/** The .env the stack started with. */
const settings = Object.fromEntries(
  readFileSync(envFile, 'utf8')
    .split('\n')
    .map((line) => /^([A-Z0-9_]+)=(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!]),
);
/** What the runbooks changed so far: every later `compose up` passes it, as an edited .env would. */
const rotated: Record<string, string> = {};
const fresh = () => randomBytes(24).toString('hex');
/** What each rotation cost, printed at the end for the closing note. */
const figures: string[] = [];
afterAll(() => process.stdout.write(`password runbooks:\n  ${figures.join('\n  ')}\n`));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const rolled = (service: string, { started, stopped }: Rolled) =>
  figures.push(
    `${service}: new containers healthy in ${seconds(started)}, old ones gone in ${seconds(stopped)}`,
  );

const target = targetOfFile(() => openTarget('compose'));
const container = async (service: string): Promise<ComposeContainer> =>
  (await composeContainers(project)).find((c) => c.service === service)!;

/** Whether a command in a container succeeds; its output either way. */
async function attempt(where: ComposeContainer, command: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    return { ok: true, out: await execIn(where, command) };
  } catch (err) {
    const failed = err as { stdout?: string; stderr?: string };
    return { ok: false, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/**
 * Runs `change` while three clients post and read through the gateway; every request must be
 * answered with a success or a 503 carrying Retry-After, except inside `gap` — the seconds in which
 * the one published gateway is replaced and nothing listens on its port.
 */
async function underTraffic(
  name: string,
  change: (gap: (during: () => Promise<unknown>) => Promise<void>) => Promise<void>,
) {
  const { world } = target();
  const as = world.as(await world.member({ plan: UNLIMITED }));
  const traffic = runTraffic(3, postAndList(await world.category(), name, 200), as, 30_000);
  await waitFor(() => traffic.outcomes.length >= 10, {
    timeoutMs: 30_000,
    what: 'traffic before the change',
  });
  const gaps: [number, number][] = [];
  await change(async (during) => {
    const from = Date.now();
    await during();
    gaps.push([from, Date.now()]);
  });
  await waitFor(() => traffic.outcomes.some((o) => o.status === 201 && o.at > Date.now() - 2_000), {
    timeoutMs: 30_000,
    what: 'a post written after the change',
  });
  const outcomes = await traffic.stop();
  const inGap = (o: Outcome) => gaps.some(([from, to]) => o.at >= from && o.at <= to);
  const failed = outcomes.filter((o) => !inGap(o) && ![200, 201, 503].includes(o.status));
  expect(failed).toEqual([]);
  for (const o of outcomes.filter((o) => o.status === 503)) expect(o.retryAfter).toMatch(/^\d+$/);
  figures.push(
    `${name}: ${outcomes.length} requests, ${outcomes.filter((o) => o.status === 503).length} answered 503, ` +
      `${outcomes.filter(inGap).filter((o) => o.status === 0).length} refused while the gateway was replaced`,
  );
  return outcomes;
}

/** Replaces the one gateway (it publishes the port, so two cannot run side by side here). */
async function replaceGateway() {
  figures.push(`gateway replaced in ${seconds(await recreateService(project, 'gateway', rotated))}`);
}

describe('the password runbooks on the compose stack', () => {
  it.each([
    ['posts-service', 'posts_service', 'POSTS_DB_PASSWORD'],
    ['users-service', 'users_service', 'USERS_DB_PASSWORD'],
    ['webhook-service', 'webhook_service', 'WEBHOOKS_DB_PASSWORD'],
  ])(
    "rotates %s's PostgreSQL role password: ALTER ROLE, then a rolling update",
    async (service, role, variable) => {
      const postgres = await container('postgres');
      const logIn = (password: string) =>
        attempt(postgres, [
          'psql',
          `postgresql://${role}:${password}@127.0.0.1:5432/community`,
          '-Atc',
          'select 1',
        ]);
      const [old, next] = [settings[variable]!, fresh()];
      expect((await logIn(old)).ok).toBe(true);

      await underTraffic(`Across ${role}'s new password`, async () => {
        await execIn(postgres, [
          'psql',
          '-U',
          'postgres',
          '-v',
          'ON_ERROR_STOP=1',
          '-c',
          `ALTER ROLE ${role} PASSWORD '${next}'`,
        ]);
        rotated[variable] = next;
        rolled(service, await rollService(project, service, rotated));
      });
      expect((await logIn(old)).ok).toBe(false);
      expect((await logIn(next)).ok).toBe(true);
    },
    300_000,
  );

  it('rotates the Redis password: both valid, the gateway replaced, the old one removed', async () => {
    const redis = await container('redis');
    const cli = (password: string, ...args: string[]) =>
      attempt(redis, ['redis-cli', '--no-auth-warning', '-a', password, ...args]);
    const [old, next] = [settings.REDIS_PASSWORD!, fresh()];

    await underTraffic('Across a new Redis password', async (gap) => {
      expect((await cli(old, 'ACL', 'SETUSER', 'default', 'on', `>${next}`)).out.trim()).toBe('OK');
      rotated.REDIS_PASSWORD = next;
      await gap(replaceGateway);
      expect((await cli(next, 'ACL', 'SETUSER', 'default', `<${old}`)).out.trim()).toBe('OK');
      // Redis itself with the new password in its settings, for its health check and its next start.
      await recreateService(project, 'redis', rotated);
    });
    const renewed = await container('redis');
    expect((await attempt(renewed, ['redis-cli', '--no-auth-warning', '-a', old, 'PING'])).out).not.toMatch(
      /PONG/,
    );
    expect((await attempt(renewed, ['redis-cli', '--no-auth-warning', '-a', next, 'PING'])).out.trim()).toBe(
      'PONG',
    );
    // The gateway counts its limits in Redis again, not in memory.
    const { baseUrl } = target();
    await waitFor(
      async () =>
        /^gateway_limiter_fallback_active(\{[^}]*\})? 0$/m.test(
          await (await fetch(`${baseUrl}/metrics`)).text(),
        ),
      { timeoutMs: 30_000, what: 'the gateway back on Redis' },
    );
  }, 300_000);

  it('rotates the RabbitMQ password: a second user, every service rolled to it, the first deleted', async () => {
    const { world, receiver } = target();
    const rabbitmq = await container('rabbitmq');
    const ctl = (...args: string[]) => execIn(rabbitmq, ['rabbitmqctl', '--silent', ...args]);
    const [user, next] = [
      (settings.RABBITMQ_USER || 'community') === 'community' ? 'community_b' : 'community',
      fresh(),
    ];
    const first = settings.RABBITMQ_USER || 'community';
    const watcher = world.as(await world.member({ plan: UNLIMITED }));
    await subscribe(watcher, receiver, 'rabbitmq-rotation', ['post.created']);

    const outcomes = await underTraffic('Across a new RabbitMQ user', async (gap) => {
      await ctl('add_user', user, next);
      await ctl('set_permissions', '-p', '/', user, '.*', '.*', '.*');
      Object.assign(rotated, { RABBITMQ_USER: user, RABBITMQ_PASSWORD: next });
      for (const service of ['posts-service', 'users-service', 'webhook-service']) {
        rolled(service, await rollService(project, service, rotated));
      }
      await gap(replaceGateway);
      // Nothing is connected as the first user any more: deleting it cuts no one off.
      expect(new Set((await ctl('list_connections', 'user')).split('\n').filter(Boolean))).toEqual(
        new Set([user]),
      );
      await ctl('delete_user', first);
    });
    expect(
      (await attempt(rabbitmq, ['rabbitmqctl', 'authenticate_user', first, settings.RABBITMQ_PASSWORD!])).ok,
    ).toBe(false);

    // Every post written across the rotation reaches the subscriber once: the events went through.
    const ids = outcomes
      .filter((o) => o.op === 'create' && o.status === 201)
      .map((o) => o.body.data.id as number)
      .sort((a, b) => a - b);
    const delivered = await waitFor(
      () => {
        const seen = receiver
          .acknowledged('rabbitmq-rotation')
          .map((d) => d.data.id as number)
          .sort((a, b) => a - b);
        return seen.length >= ids.length ? seen : null;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'post.created for every post written' },
    );
    expect(delivered).toEqual(ids);
    expectStatus(await watcher('GET', '/api/v1/posts?limit=1'), 200);
  }, 600_000);
});
