import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import postgres from 'postgres';
import {
  dropRoles,
  freePort,
  redisPrefix,
  serviceSandbox,
  testInfra,
  testRoleName,
  waitFor,
  type ServiceSandbox,
} from '@community/test-harness';
import { APP_SERVICES, containerEnv, type AppService, type LocalInfra } from './support/container-env';

/*
 * The production start path, as the images run it: `npm run build` (tsc), then every service with
 * plain node from its dist/ — no tsx, no source condition — in the environment docker-compose.yml
 * gives its container, against this machine's PostgreSQL, Redis and RabbitMQ. The database is set up
 * by deploy/postgres/init-roles.sh, so each service logs in as a role that can use only its schema,
 * and the data services' migrations run first through dist/migrate.js, as the Kubernetes init
 * containers run them.
 */

const root = path.resolve(__dirname, '../..');
const DATA_SERVICES = ['posts-service', 'users-service', 'webhook-service'] as const;
const ROLE_OF = {
  'posts-service': 'posts_service',
  'users-service': 'users_service',
  'webhook-service': 'webhook_service',
};

interface Running {
  child: ChildProcess;
  output: string;
  exited: Promise<number | null>;
}

let sandbox: ServiceSandbox;
let infra: LocalInfra;
const migrations: Record<string, { status: number | null; output: string }> = {};
const running = new Map<AppService, Running>();

const SECRETS_KEY = randomBytes(32).toString('hex');

function envOf(service: AppService): NodeJS.ProcessEnv {
  // AMQP_EXCHANGE and REDIS_PREFIX are not in the compose file (it uses the defaults); a test run
  // needs its own so it never meets another run's events or limits.
  const env = containerEnv(service, infra);
  return {
    ...env,
    AMQP_EXCHANGE: sandbox.exchange,
    REDIS_PREFIX: infra.redisPrefix,
    // .env.example's SECRETS_KEY is a placeholder webhook-service refuses (the README has it replaced
    // by `openssl rand -hex 32`): the run gets a real key where the compose file passes one.
    ...('SECRETS_KEY' in env ? { SECRETS_KEY: SECRETS_KEY } : {}),
  };
}

function startFromDist(service: AppService): Running {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
    cwd: path.join(root, service),
    env: envOf(service),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Running = { child, output: '', exited: new Promise((resolve) => child.once('exit', resolve)) };
  child.stdout!.on('data', (chunk) => (run.output += chunk));
  child.stderr!.on('data', (chunk) => (run.output += chunk));
  return run;
}

const START_ORDER: AppService[] = ['posts-service', 'webhook-service', 'users-service', 'gateway'];

/** The end of what a service printed, for a failure to show why. */
const lastOutput = (service: AppService) => running.get(service)!.output.slice(-2_000);

/**
 * The service from dist/, once it listens on its own port. A port picked free can be taken by another
 * test file's process before the service binds it (libs/test-harness free-port.ts): the service then
 * exits, unable to listen, while the other process would answer in its place — a registration would
 * reach another stack. So a service that could not take its port starts again on another.
 */
async function startOnOwnPort(service: AppService): Promise<Running> {
  for (let attempt = 1; ; attempt++) {
    const run = startFromDist(service);
    await waitFor(() => run.output.includes(`${service} listening`) || run.child.exitCode !== null, {
      what: `${service} from dist/ to listen`,
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    if (run.child.exitCode === null) return run;
    if (!run.output.includes('EADDRINUSE') || attempt === 3)
      throw new Error(`${service} exited ${run.child.exitCode}; it printed: ${run.output.slice(-2_000)}`);
    infra.ports[service] = await freePort();
  }
}

const url = (service: AppService, pathname: string) => `http://127.0.0.1:${infra.ports[service]}${pathname}`;

beforeAll(async () => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'pipe' });

  sandbox = await serviceSandbox('prod_start');
  const roles = Object.fromEntries(Object.values(ROLE_OF).map((role) => [role, testRoleName(role)]));
  const pg = new URL(testInfra().pgUrl);
  execFileSync('sh', [path.join(root, 'deploy/postgres/init-roles.sh')], {
    env: {
      PATH: process.env.PATH,
      PGHOST: pg.hostname,
      PGPORT: pg.port || '5432',
      PGPASSWORD: decodeURIComponent(pg.password),
      POSTGRES_USER: decodeURIComponent(pg.username) || 'postgres',
      POSTGRES_DB: sandbox.database.name,
      POSTS_DB_USER: roles.posts_service,
      USERS_DB_USER: roles.users_service,
      WEBHOOKS_DB_USER: roles.webhook_service,
      // As in .env.example; the local server trusts loopback logins, so they are not checked here.
      POSTS_DB_PASSWORD: 'change-me-posts',
      USERS_DB_PASSWORD: 'change-me-users',
      WEBHOOKS_DB_PASSWORD: 'change-me-webhooks',
    },
    stdio: 'pipe',
  });
  const ports = Object.fromEntries(
    await Promise.all(APP_SERVICES.map(async (service) => [service, await freePort()])),
  ) as Record<AppService, number>;
  infra = {
    pgUrl: testInfra().pgUrl,
    redisUrl: testInfra().redisUrl,
    amqpUrl: testInfra().amqpUrl,
    redisPrefix: redisPrefix('prod_start'),
    database: sandbox.database.name,
    roles,
    ports,
  };

  for (const service of DATA_SERVICES) {
    const run = spawnSync(process.execPath, ['dist/migrate.js'], {
      cwd: path.join(root, service),
      env: envOf(service),
      encoding: 'utf8',
    });
    migrations[service] = { status: run.status, output: run.stdout + run.stderr };
  }
  // Each after those whose ports its environment names: users-service names posts- and
  // webhook-service, the gateway all three.
  for (const service of START_ORDER) running.set(service, await startOnOwnPort(service));
  for (const service of APP_SERVICES) {
    await waitFor(async () => (await fetch(url(service, '/readyz')).catch(() => null))?.ok, {
      what: `${service} from dist/ to be ready (output: ${lastOutput(service)})`,
      timeoutMs: 30_000,
      intervalMs: 200,
    });
  }
}, 180_000);

afterAll(async () => {
  for (const { child, exited } of running.values()) {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }
  await sandbox?.cleanup([...DATA_SERVICES]);
  if (infra) await dropRoles(Object.values(infra.roles));
});

describe('the services built with tsc, started from dist/ with the containers’ environment', () => {
  it('applied the migrations with dist/migrate.js as each service’s own role', async () => {
    for (const service of DATA_SERVICES) {
      expect(migrations[service]).toMatchObject({
        status: 0,
        output: expect.stringContaining('migrations applied'),
      });
    }
    const sql = postgres(sandbox.database.url, { max: 1, onnotice: () => {} });
    try {
      const owners = await sql<{ schemaname: string; tableowner: string }[]>`
        select distinct schemaname, tableowner from pg_tables
        where schemaname in ('posts', 'users', 'webhooks') order by schemaname`;
      expect(owners).toEqual([
        { schemaname: 'posts', tableowner: infra.roles.posts_service },
        { schemaname: 'users', tableowner: infra.roles.users_service },
        { schemaname: 'webhooks', tableowner: infra.roles.webhook_service },
      ]);
    } finally {
      await sql.end();
    }
  });

  it('require only what their packages declare, which is all a production install provides', () => {
    const { references } = JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')) as {
      references: { path: string }[];
    };
    const undeclared: string[] = [];
    for (const reference of references) {
      const dir = path.join(root, path.dirname(reference.path));
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...builtinModules]);
      const files = readdirSync(path.join(dir, 'dist'), { recursive: true, encoding: 'utf8' });
      for (const file of files.filter((f) => f.endsWith('.js'))) {
        const code = readFileSync(path.join(dir, 'dist', file), 'utf8');
        for (const [, specifier] of code.matchAll(/\brequire\("([^".][^"]*)"\)/g)) {
          const name = specifier!
            .replace(/^node:/, '')
            .split('/')
            .slice(0, specifier!.startsWith('@') ? 2 : 1)
            .join('/');
          if (!declared.has(name)) undeclared.push(`${manifest.name}: dist/${file} requires ${name}`);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('are ready, with every dependency up', async () => {
    type Readiness = { status: string; checks: Record<string, { status: string }> };
    for (const service of APP_SERVICES) {
      // beforeAll waited for a 200, which `degraded` is too: the gateway's Redis or AMQP connection can still be
      // on its way up then (seen once). Everything up within a bound is what this test asks.
      let body: Readiness | undefined;
      await waitFor(
        async () => {
          body = (await (await fetch(url(service, '/readyz'))).json()) as Readiness;
          return body.status === 'ok';
        },
        { what: `${service} to report every dependency up`, timeoutMs: 15_000, intervalMs: 200 },
      ).catch(() => {});
      expect({ service, status: body?.status, checks: body?.checks }).toEqual({
        service,
        status: 'ok',
        checks: expect.anything(),
      });
      const expected = service === 'gateway' ? ['rabbitmq', 'redis'] : ['postgres', 'rabbitmq'];
      expect(Object.keys(body!.checks).sort()).toEqual(expected);
    }
  }, 60_000);

  it('serve the API through the gateway: a registration reaches users-service and its event posts-service', async () => {
    const register = await fetch(url('gateway', '/api/v1/auth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'prod_start',
        email: 'prod_start@example.com',
        password: 'correct horse battery',
      }),
    });
    expect(register.status).toBe(201);
    const { data } = (await register.json()) as { data: { id: number; username: string } };
    expect(data.username).toBe('prod_start');

    // posts-service keeps an authors replica fed by user.registered, through the outbox and RabbitMQ.
    const sql = postgres(sandbox.database.url, { max: 1, onnotice: () => {} });
    try {
      await waitFor(async () => (await sql`select 1 from posts.authors where id = ${data.id}`).length, {
        what: 'the user.registered event to reach posts-service',
        timeoutMs: 10_000,
      }).catch((err: Error) => {
        throw new Error(
          `${err.message}; users-service printed: ${lastOutput('users-service')}; ` +
            `posts-service printed: ${lastOutput('posts-service')}`,
        );
      });
    } finally {
      await sql.end();
    }
  });

  it('pass the image health check, which fails when nothing answers', async () => {
    const healthcheck = (service: AppService, env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [path.join(root, 'deploy/docker/healthcheck.js')], {
        env,
        encoding: 'utf8',
      });
    for (const service of APP_SERVICES) {
      const check = healthcheck(service, envOf(service));
      expect({ service, status: check.status, stderr: check.stderr }).toEqual({
        service,
        status: 0,
        stderr: '',
      });
    }
    const closed = await freePort();
    const down = healthcheck('posts-service', {
      ...envOf('posts-service'),
      POSTS_SERVICE_PORT: String(closed),
    });
    expect(down.status).toBe(1);
    expect(down.stderr).toBe(`healthcheck: http://127.0.0.1:${closed}/healthz: ECONNREFUSED\n`);
  });

  it('can each use only their own schema', async () => {
    const asPosts = new URL(sandbox.database.url);
    asPosts.username = infra.roles.posts_service!;
    const sql = postgres(asPosts.toString(), { max: 1, onnotice: () => {} });
    try {
      await expect(sql`select count(*) from users.users`).rejects.toMatchObject({ code: '42501' });
      await expect(sql`create schema intruder`).rejects.toMatchObject({ code: '42501' });
      await expect(sql`create table public.intruder (id int)`).rejects.toMatchObject({ code: '42501' });
      // The audit log is append-only for the role that owns it (DESIGN.md §12).
      await sql`insert into posts.moderation_actions (event_id, action, target_type, target_id, created_at)
                values ('evt_test', 'hide', 'post', 1, now())`;
      for (const change of [
        sql`update posts.moderation_actions set reason = 'changed'`,
        sql`delete from posts.moderation_actions`,
        sql`truncate posts.moderation_actions`,
      ])
        await expect(change).rejects.toMatchObject({ code: '42501' });
    } finally {
      await sql.end();
    }
  });

  it('drain and exit 0 on SIGTERM, as node does as PID 1 in the container', async () => {
    for (const [service, run] of running) {
      run.child.kill('SIGTERM');
      const code = await run.exited;
      if (code !== 0) throw new Error(`${service} exited ${code}; it printed: ${lastOutput(service)}`);
      expect(run.output).toContain(`${service} stopped`);
    }
  });
});
