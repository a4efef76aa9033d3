/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half random, so many clients that
 * lost the broker together do not come back in lockstep.
 */
export function backoffDelay(failures: number, minMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(failures, 30));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
