/**
 * `npm start`: checks the infrastructure, starts every service that exists with readable, prefixed
 * logs, waits until each is ready and says where to go next. Ctrl-C stops everything cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { prettyFactory } from 'pino-pretty';
import { DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, redactUrl } from '@community/config';
import { seedDemoFromEnv } from './seed-demo';
import { START_COMMANDS } from './start-commands';

interface ServiceSpec {
  name: string;
  /** Extra V8 flags for this process. */
  nodeArgs?: string[];
  dir: string;
  portVar: string;
  port: number;
  color: number;
}

const SERVICES: ServiceSpec[] = [
  { name: 'posts', dir: 'posts-service', portVar: 'POSTS_SERVICE_PORT', port: 3001, color: 36 },
  { name: 'users', dir: 'users-service', portVar: 'USERS_SERVICE_PORT', port: 3002, color: 35 },
  { name: 'webhooks', dir: 'webhook-service', portVar: 'WEBHOOK_SERVICE_PORT', port: 3003, color: 32 },
  // A larger young generation: the proxy allocates per request, and fewer scavenges cut its CPU
  // per request by ~13% (bench/RESULTS.md).
  {
    name: 'gateway',
    dir: 'gateway',
    portVar: 'GATEWAY_PORT',
    port: 8080,
    color: 33,
    nodeArgs: ['--max-semi-space-size=32'],
  },
];

const root = path.resolve(__dirname, '..');

/**
 * SECRETS_KEY for `npm start`, generated like INTERNAL_TOKEN — but on the first run only, and kept
 * in a git-ignored file: the webhook secrets it seals stay in the database between runs, and a key
 * made anew each run could not open them.
 */
function localSecretsKey(): string {
  const file = path.join(root, '.local', 'secrets-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('hex');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

const env: NodeJS.ProcessEnv = {
  ...process.env,
  INTERNAL_TOKEN: process.env.INTERNAL_TOKEN || randomBytes(32).toString('base64url'),
  SECRETS_KEY: process.env.SECRETS_KEY || localSecretsKey(),
  DATABASE_URL: process.env.DATABASE_URL || DEFAULT_DATABASE_URL,
  AMQP_URL: process.env.AMQP_URL || DEFAULT_AMQP_URL,
  REDIS_URL: process.env.REDIS_URL || DEFAULT_REDIS_URL,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS || 'true',
  // SEED_DEMO=true registers the demo's 50 members from this machine's one address.
  ...(process.env.SEED_DEMO === 'true'
    ? { REGISTRATIONS_PER_HOUR_PER_IP: process.env.REGISTRATIONS_PER_HOUR_PER_IP || '1000' }
    : {}),
};

const INFRA = [
  {
    name: 'PostgreSQL',
    url: env.DATABASE_URL!,
    defaultPort: 5432,
    start: START_COMMANDS.postgres,
  },
  { name: 'RabbitMQ', url: env.AMQP_URL!, defaultPort: 5672, start: START_COMMANDS.rabbitmq },
  { name: 'Redis', url: env.REDIS_URL!, defaultPort: 6379, start: START_COMMANDS.redis },
];

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || defaultPort), timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const pretty = prettyFactory({
  colorize: process.stdout.isTTY,
  translateTime: 'HH:MM:ss',
  ignore: 'pid,hostname,service',
  singleLine: true,
});

function pipeWithPrefix(child: ChildProcess, spec: ServiceSpec): void {
  const prefix = `\x1b[${spec.color}m${spec.name.padEnd(8)}|\x1b[0m `;
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      const text = line.startsWith('{') ? pretty(line).trimEnd() : line;
      process.stdout.write(`${prefix}${text}\n`);
    });
  }
}

async function waitReady(spec: ServiceSpec, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${spec.dir} exited during start (code ${child.exitCode})`);
    try {
      const res = await fetch(`http://127.0.0.1:${spec.port}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${spec.dir} was not ready within 60 s`);
}

/** Exits with the command that starts the first of PostgreSQL, Redis or RabbitMQ that is not reachable. */
async function requireInfrastructure(): Promise<void> {
  for (const infra of INFRA) {
    if (!(await reachable(infra.url, infra.defaultPort))) {
      process.stderr.write(
        `${infra.name} is not reachable at ${redactUrl(infra.url)}; start it with: ${infra.start}\n`,
      );
      process.exit(1);
    }
  }
}

/** The running services, and how to stop them all (on Ctrl-C, or when one stops by itself). */
class Stack {
  readonly children: ChildProcess[] = [];
  private stopping = false;

  constructor() {
    process.on('SIGINT', () => this.stop(0));
    process.on('SIGTERM', () => this.stop(0));
  }

  start(spec: ServiceSpec): void {
    spec.port = Number(env[spec.portVar] || spec.port);
    const args = [...(spec.nodeArgs ?? []), '--conditions=source', '--import', 'tsx'];
    const child = spawn(process.execPath, [...args, path.join(spec.dir, 'src/main.ts')], {
      cwd: root,
      env: { ...env, [spec.portVar]: String(spec.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.push(child);
    pipeWithPrefix(child, spec);
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      process.stderr.write(
        `${spec.dir} stopped unexpectedly (${signal ?? `exit code ${code}`}); stopping the stack\n`,
      );
      this.stop(1);
    });
  }

  stop(code: number): void {
    if (this.stopping) return;
    this.stopping = true;
    const running = this.children.filter((child) => child.exitCode === null);
    for (const child of running) child.kill('SIGTERM');
    Promise.all(running.map((child) => new Promise((r) => child.once('exit', r)))).then(() =>
      process.exit(code),
    );
  }
}

/** What a newcomer reads once the stack is up: where it is, and how to get a first key. */
function welcome(): string {
  const gateway = `http://localhost:${SERVICES.find((spec) => spec.name === 'gateway')!.port}`;
  return [
    '',
    `Community Platform API is up: ${gateway}/api/v1 (reference: ${gateway}/docs)`,
    ...SERVICES.filter((spec) => spec.name !== 'gateway').map(
      (spec) =>
        `  ${spec.dir.padEnd(14)} http://127.0.0.1:${spec.port} (internal: /healthz /readyz /metrics)`,
    ),
    '',
    'Get a first API key:',
    `  1. open ${gateway}/account/register and create an account`,
    '  2. on the "API keys" page, press "Generate new key" and copy the key (it is shown once)',
    `  3. curl -H "Authorization: Bearer <key>" ${gateway}/api/v1/posts`,
    '',
    'An admin account (categories, plans, roles) is created at start when ADMIN_USERNAME,',
    'ADMIN_PASSWORD and ADMIN_EMAIL are set. Press Ctrl-C to stop.',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  await requireInfrastructure();
  const stack = new Stack();
  for (const spec of SERVICES) stack.start(spec);
  try {
    await Promise.all(SERVICES.map((spec, i) => waitReady(spec, stack.children[i]!)));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    stack.stop(1);
    return;
  }
  process.stdout.write(welcome());
  if (env.SEED_DEMO === 'true') {
    // The stack stays up whatever the seeder says: it is a demo's content, not the platform.
    const gateway = SERVICES.find((spec) => spec.name === 'gateway')!;
    await seedDemoFromEnv({ ...env, SEED_BASE_URL: `http://127.0.0.1:${gateway.port}` }).catch(
      (err: unknown) => process.stderr.write(`seed:demo failed: ${(err as Error).message}\n`),
    );
  }
}

void main();
