import { dockerAvailable } from './docker';
import { redactUrl, tcpReachable } from './reachable';
import type { ServiceSpec, StartedService } from './services';

const LOCAL_PROBE_MS = 1000;
const CONFIGURED_PROBE_MS = 3000;

export interface Located {
  url: string;
  /** Set when global setup started a container that teardown must stop. */
  container?: StartedService;
}

/**
 * Finds one service: a configured URL, else the local default if it answers, else a testcontainer
 * if a container engine runs. Otherwise throws an error whose message is one sentence saying what to do.
 */
export async function locateService(spec: ServiceSpec, hasDocker: () => Promise<boolean>): Promise<Located> {
  const { found, source } = await find(spec, hasDocker);
  if (!spec.verify) return found;
  try {
    return { ...found, url: await spec.verify(found.url, source) };
  } catch (err) {
    await found.container?.stop();
    throw err;
  }
}

async function find(
  spec: ServiceSpec,
  hasDocker: () => Promise<boolean>,
): Promise<{ found: Located; source: string }> {
  const configured = spec.envVars.map((name) => ({ name, url: process.env[name] })).find((env) => env.url);
  if (configured?.url) {
    if (await tcpReachable(configured.url, spec.defaultPort, CONFIGURED_PROBE_MS))
      return { found: { url: configured.url }, source: configured.name };
    throw new Error(
      `${spec.title} is not reachable at ${redactUrl(configured.url)} (from ${configured.name}): start it or fix ${configured.name}.`,
    );
  }

  if (await tcpReachable(spec.localUrl, spec.defaultPort, LOCAL_PROBE_MS))
    return { found: { url: spec.localUrl }, source: spec.envVars[0] };

  if (!(await hasDocker())) {
    throw new Error(
      `${spec.title} is not reachable at ${redactUrl(spec.localUrl)} and no Docker engine is available for testcontainers: start it with "${spec.startCommand}" or set ${spec.envVars[0]}.`,
    );
  }
  process.stderr.write(`test-harness: ${spec.title} is not running locally; starting a testcontainer\n`);
  try {
    const container = await spec.startContainer();
    return { found: { url: container.url, container }, source: spec.envVars[0] };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `${spec.title} is not reachable at ${redactUrl(spec.localUrl)} and its testcontainer failed to start (${reason}): start it with "${spec.startCommand}" or set ${spec.envVars[0]}.`,
    );
  }
}

/** Asks about the container engine at most once per run, and only if some service needs it. */
export function dockerOnce(): () => Promise<boolean> {
  let answer: Promise<boolean> | undefined;
  return () => (answer ??= dockerAvailable());
}
