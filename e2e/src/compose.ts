import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

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
