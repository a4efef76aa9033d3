import type { Call } from './client/http';

/** One request of a traffic run and how it ended; status 0 means no HTTP answer at all. */
export interface Outcome {
  op: string;
  status: number;
  ms: number;
  /** When it was sent (ms since epoch). */
  at: number;
  body?: any;
  retryAfter?: string | null;
  error?: string;
}

/**
 * Clients that keep calling until stopped, each one request at a time, recording every outcome.
 * A request that gets no answer within `timeoutMs` is recorded as status 0 — the "hang" a fault test
 * must never see.
 */
export function runTraffic(
  clients: number,
  step: (
    call: (op: string, method: string, path: string, body?: unknown) => Promise<Outcome>,
  ) => Promise<void>,
  as: Call,
  timeoutMs = 12_000,
) {
  const outcomes: Outcome[] = [];
  let running = true;
  const call = async (op: string, method: string, path: string, body?: unknown): Promise<Outcome> => {
    const at = Date.now();
    let outcome: Outcome;
    try {
      const res = await as(method, path, { body, timeoutMs });
      outcome = {
        op,
        status: res.status,
        ms: res.ms,
        at,
        body: res.body,
        retryAfter: res.headers.get('retry-after'),
      };
    } catch (err) {
      outcome = { op, status: 0, ms: Date.now() - at, at, error: (err as Error).message };
    }
    outcomes.push(outcome);
    return outcome;
  };
  const loops = Array.from({ length: clients }, async () => {
    while (running) await step(call);
  });
  return {
    outcomes,
    async stop(): Promise<Outcome[]> {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}
