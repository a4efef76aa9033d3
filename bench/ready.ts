/** A process a bench started, as far as waiting for it goes. */
export interface Starting {
  name: string;
  running(): boolean;
  /** What it printed, for the error when it does not come up. */
  log(): string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 2xx; fails at once when the process exits, or after `timeoutMs`. */
export async function waitAnswering(
  process: Starting,
  url: string,
  { timeoutMs, intervalMs }: { timeoutMs: number; intervalMs: number },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!process.running()) throw new Error(`${process.name} exited during start:\n${process.log()}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(intervalMs);
  }
  throw new Error(`${process.name} was not ready within ${timeoutMs / 1000} s (${url}):\n${process.log()}`);
}
