export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  what?: string;
}

type Falsy = undefined | null | false;

const TIMED_OUT = Symbol('timed out');

/** Calls `probe` until it returns something truthy and returns that; a hanging probe counts against the timeout. */
export async function waitFor<T>(
  probe: () => Promise<T | Falsy> | T | Falsy,
  opts: WaitForOptions = {},
): Promise<T> {
  const { timeoutMs = 5000, intervalMs = 50, what = 'the condition' } = opts;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;

  for (;;) {
    try {
      const value = await beforeDeadline(probe, deadline);
      if (value === TIMED_OUT) break;
      if (value) return value as T;
    } catch (err) {
      lastError = err;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    await sleep(Math.min(intervalMs, remaining));
  }

  const detail = lastError === undefined ? '' : `; last error: ${describe(lastError)}`;
  throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}${detail}`, { cause: lastError });
}

async function beforeDeadline<T>(
  probe: () => Promise<T> | T,
  deadline: number,
): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, deadline - Date.now()));
  });
  try {
    // Promise.resolve().then turns a synchronous throw into a rejection.
    return await Promise.race([Promise.resolve().then(probe), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
