import { setTimeout as sleep } from 'node:timers/promises';
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

/** A call of a traffic run: `op` names it in the outcomes. */
export type TrafficCall = (op: string, method: string, path: string, body?: unknown) => Promise<Outcome>;

/**
 * Clients that keep calling until stopped, each one request at a time, recording every outcome.
 * A request that gets no answer within `timeoutMs` is recorded as status 0 — the "hang" a fault test
 * must never see.
 */
export function runTraffic(
  clients: number,
  step: (call: TrafficCall) => Promise<void>,
  as: Call,
  timeoutMs = 12_000,
) {
  const outcomes: Outcome[] = [];
  let running = true;
  const call: TrafficCall = async (op, method, path, body) => {
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

/**
 * A writer's step: a numbered post (`${title} 1`, `${title} 2` …) then the first page of posts; after
 * a refused post it waits `pauseMs`, so a down service is not hammered.
 */
export function postAndList(categoryId: number, title: string, pauseMs: number) {
  let n = 0;
  return async (call: TrafficCall) => {
    n += 1;
    const numbered = `${title} ${n}`;
    const created = await call('create', 'POST', '/api/v1/posts', {
      title: numbered,
      content: numbered,
      category_id: categoryId,
    });
    if (created.status !== 201) await sleep(pauseMs);
    await call('list', 'GET', '/api/v1/posts?limit=5');
  };
}
