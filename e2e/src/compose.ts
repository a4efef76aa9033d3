import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { waitFor } from '@community/test-harness';

const run = promisify(execFile);

/** One container of a compose project, as the engine describes it. */
export interface ComposeContainer {
  id: string;
  service: string;
  /** network name → the container's address on it */
  addresses: Record<string, string>;
  /** "8080/tcp" → the host addresses it is published on, e.g. ["127.0.0.1:40123"] */
  published: Record<string, string[]>;
  health: string;
  image: string;
}

/** The compose project the runner started (deploy/test/containers/run.sh), or null. */
export function composeProject(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.E2E_COMPOSE_PROJECT?.trim() || null;
}

async function docker(...args: string[]): Promise<string> {
  return (await run('docker', args, { maxBuffer: 32 * 1024 * 1024 })).stdout;
}

/** Every running container of `project`, through the docker CLI (DOCKER_HOST picks the engine). */
export async function composeContainers(project: string): Promise<ComposeContainer[]> {
  const ids = (await docker('ps', '--quiet', '--filter', `label=com.docker.compose.project=${project}`))
    .split('\n')
    .filter(Boolean);
  if (!ids.length) return [];
  const inspected = JSON.parse(await docker('inspect', ...ids)) as any[];
  return inspected.map((c) => ({
    id: c.Id,
    service: c.Config.Labels['com.docker.compose.service'],
    addresses: Object.fromEntries(
      Object.entries(c.NetworkSettings.Networks ?? {}).map(([name, n]: [string, any]) => [name, n.IPAddress]),
    ),
    published: Object.fromEntries(
      Object.entries(c.NetworkSettings.Ports ?? {})
        .filter(([, bindings]) => Array.isArray(bindings) && bindings.length)
        .map(([port, bindings]) => [
          port,
          (bindings as { HostIp: string; HostPort: string }[]).map(
            (b) => `${b.HostIp || '0.0.0.0'}:${b.HostPort}`,
          ),
        ]),
    ),
    health: c.State.Health?.Status ?? 'none',
    image: c.Config.Image,
  }));
}

/** Runs a command in a running container (`docker exec`), returning what it printed. */
export async function execIn(container: ComposeContainer, command: string[]): Promise<string> {
  return docker('exec', container.id, ...command);
}

/**
 * Runs the runner's compose command (docker-compose with the project, its .env and files), `env`
 * winning over the .env file as a shell's variables do.
 */
export async function compose(args: string[], env: Record<string, string> = {}): Promise<string> {
  const command = process.env.E2E_COMPOSE_COMMAND;
  if (!command) throw new Error('set E2E_COMPOSE_COMMAND to the compose command that started the stack');
  return (await run(command, args, { env: { ...process.env, ...env }, maxBuffer: 8 * 1024 * 1024 })).stdout;
}

/** How long each part of a rolling update took, in ms. */
export interface Rolled {
  /** From `compose up` until every new container is healthy. */
  started: number;
  /** Stopping (SIGTERM, drain) and removing the old containers, one after another. */
  stopped: number;
}

/**
 * Replaces every container of a replicated service with ones made from the compose file and `env`,
 * as a rolling update does: as many new containers join and turn healthy, then each old one in turn
 * gets SIGTERM (it drains: DESIGN.md §16) and is removed.
 */
export async function rollService(
  project: string,
  service: string,
  env: Record<string, string>,
  graceSeconds = 30,
): Promise<Rolled> {
  const replicas = async () => (await composeContainers(project)).filter((c) => c.service === service);
  const old = await replicas();
  const scale = old.length * 2;
  const began = Date.now();
  await compose(
    ['up', '--detach', '--no-deps', '--no-recreate', '--scale', `${service}=${scale}`, service],
    env,
  );
  await waitFor(
    async () => {
      const now = await replicas();
      return now.length === scale && now.every((c) => c.health === 'healthy');
    },
    { timeoutMs: 120_000, intervalMs: 500, what: `${scale} healthy ${service} containers` },
  );
  const healthy = Date.now();
  for (const container of old) {
    await docker('stop', '--time', String(graceSeconds), container.id);
    await docker('rm', container.id);
  }
  return { started: healthy - began, stopped: Date.now() - healthy };
}

/**
 * Replaces a service's one container with one made from the compose file and `env` (stop, then
 * start: a gap), and waits until it is healthy. Returns how long it took, in ms.
 */
export async function recreateService(
  project: string,
  service: string,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<number> {
  const began = Date.now();
  await compose(['up', '--detach', '--no-deps', '--force-recreate', service], env);
  await waitFor(
    async () => (await composeContainers(project)).find((c) => c.service === service)?.health === 'healthy',
    { timeoutMs, intervalMs: 500, what: `a new ${service} healthy` },
  );
  return Date.now() - began;
}

/**
 * Restarts a service's container the way an operator would: SIGTERM, up to `graceSeconds` to exit
 * (then SIGKILL), start again. Returns how long the engine took, in ms.
 */
export async function restartService(project: string, service: string, graceSeconds = 30): Promise<number> {
  const container = (await composeContainers(project)).find((c) => c.service === service);
  if (!container) throw new Error(`no running container for ${service} in ${project}`);
  const started = Date.now();
  await docker('restart', '--time', String(graceSeconds), container.id);
  return Date.now() - started;
}

/**
 * From a throw-away container on `network` (read-only, unprivileged, node from `image`), which of
 * `targets` ("host:port") accept a TCP connection within 2 s.
 */
export async function openFrom(network: string, image: string, targets: string[]): Promise<string[]> {
  const script = `
    const net = require('node:net');
    const probe = (t) => new Promise((resolve) => {
      const i = t.lastIndexOf(':');
      const s = net.connect({ host: t.slice(0, i), port: Number(t.slice(i + 1)) });
      const done = (ok) => { s.destroy(); resolve(ok ? t : null); };
      s.setTimeout(2000, () => done(false));
      s.once('connect', () => done(true));
      s.once('error', () => done(false));
    });
    Promise.all(${JSON.stringify(targets)}.map(probe)).then((r) => console.log(JSON.stringify(r.filter(Boolean))));`;
  const out = await docker(
    ...[
      'run',
      '--rm',
      '--no-healthcheck',
      '--network',
      network,
      '--read-only',
      '--cap-drop',
      'ALL',
      '--user',
      '10001:10001',
    ],
    ...['--entrypoint', 'node', image, '-e', script],
  );
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}
