import type { StartedService } from './services';

// Jest runs global setup and teardown in one process but may load them as separate module copies,
// so the containers to stop are handed over on the process-wide global object.
const KEY = Symbol.for('@community/test-harness/started-containers');
type Holder = { [KEY]?: StartedService[] };

export function rememberContainers(containers: StartedService[]): void {
  (globalThis as Holder)[KEY] = [...((globalThis as Holder)[KEY] ?? []), ...containers];
}

/** Stops every container this process started; a container that will not stop does not block the others. */
export async function stopContainers(): Promise<void> {
  const containers = (globalThis as Holder)[KEY] ?? [];
  delete (globalThis as Holder)[KEY];
  const results = await Promise.allSettled(containers.map((container) => container.stop()));
  for (const result of results) {
    if (result.status === 'rejected') {
      process.stderr.write(`test-harness: could not stop a testcontainer: ${String(result.reason)}\n`);
    }
  }
}
