/**
 * Load for the overload bench (DESIGN.md §18): an open loop sends each request at its appointed
 * time whatever the answers do, and times it from that time, not from when it left, so a stall in
 * the server (or in this process) counts against every request it delayed: no coordinated omission.
 * The client is undici's Pool, the one the gateway forwards with: little work per request, so one
 * core offers several thousand a second.
 */
import { Pool } from 'undici';
import { percentile } from './measure';

/** One request: the path under the gateway and the API key it carries. */
export interface Call {
  path: string;
  key: string;
}

/** How long a request may take before it counts as unanswered (`timeout`). */
const REQUEST_TIMEOUT_MS = 10_000;

export const loadPool = (url: string, connections: number) =>
  new Pool(url, {
    connections,
    pipelining: 1,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });

/** The answers of one run: each kind counted, the latencies of the 2xx and of `503 overloaded` kept. */
export class Tally {
  /** `200`, `503 overloaded`, `429 concurrency_limited`, or a socket error's code. */
  readonly kinds = new Map<string, number>();
  readonly admitted: number[] = [];
  readonly overloaded: number[] = [];
  /** How late this process sent each request (its own stalls), ms. */
  readonly lateness: number[] = [];
  sent = 0;
  answered = 0;
  /** From the first appointed send to the last answer, seconds. */
  seconds = 0;

  add(kind: string, ms: number): void {
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    this.answered++;
    if (kind.startsWith('2')) this.admitted.push(ms);
    else if (kind === '503 overloaded') this.overloaded.push(ms);
  }

  count(predicate: (kind: string) => boolean): number {
    let n = 0;
    for (const [kind, times] of this.kinds) if (predicate(kind)) n += times;
    return n;
  }

  get okShare(): number {
    return this.sent ? this.admitted.length / this.sent : 0;
  }

  /** Percentiles (ms) of the admitted answers, of the refusals and of this process's lateness. */
  summary() {
    const { admitted, overloaded, lateness } = this;
    return {
      goodput: admitted.length / this.seconds,
      p50: percentile(admitted, 50),
      p99: percentile(admitted, 99),
      rejectedP99: percentile(overloaded, 99),
      rejectedMax: percentile(overloaded, 100),
      lateP99: percentile(lateness, 99),
      lateMax: lateness.length ? percentile(lateness, 100) : 0,
    };
  }

  kindsLine(): string {
    return [...this.kinds]
      .sort((a, b) => b[1] - a[1])
      .map(([kind, n]) => `${n} × ${kind}`)
      .join(', ');
  }
}

/** Sends `call`, due at `dueAt`, and counts its answer in `tally` once read in full. */
async function fire(pool: Pool, call: Call, dueAt: number, tally: Tally): Promise<void> {
  try {
    const { statusCode, body } = await pool.request({
      method: 'GET',
      path: call.path,
      headers: { authorization: `Bearer ${call.key}` },
    });
    if (statusCode < 300) {
      await body.dump();
      tally.add(String(statusCode), performance.now() - dueAt);
    } else {
      const text = await body.text();
      const code = /"error":"([a-z_]+)"/.exec(text)?.[1] ?? 'no error code';
      tally.add(`${statusCode} ${code}`, performance.now() - dueAt);
    }
  } catch (err) {
    tally.add((err as { code?: string }).code ?? (err as Error).name, performance.now() - dueAt);
  }
}

/**
 * `rate` requests a second for `seconds`, the i-th due at start + i / rate, whatever the answers do;
 * resolves once every one is answered (or timed out).
 */
export async function openLoop(
  pool: Pool,
  { rate, seconds }: { rate: number; seconds: number },
  pick: (i: number) => Call,
): Promise<Tally> {
  const tally = new Tally();
  const total = Math.round(rate * seconds);
  const gap = 1000 / rate;
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      for (; tally.sent < total; tally.sent++) {
        const due = start + tally.sent * gap;
        if (due > now) break;
        tally.lateness.push(now - due);
        inFlight.push(fire(pool, pick(tally.sent), due, tally));
      }
      if (tally.sent === total) return resolve();
      // Timers fire a millisecond late at best: the requests due meanwhile leave together, each
      // still timed from its own appointed time.
      setTimeout(tick, start + tally.sent * gap - performance.now());
    };
    tick();
  });
  await Promise.all(inFlight);
  tally.seconds = (performance.now() - start) / 1000;
  return tally;
}

/** `concurrency` callers, each sending its next request when the last is answered, for `seconds`. */
export async function closedLoop(
  pool: Pool,
  { concurrency, seconds }: { concurrency: number; seconds: number },
  pick: (i: number) => Call,
): Promise<Tally> {
  const tally = new Tally();
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) await fire(pool, pick(tally.sent++), performance.now(), tally);
    }),
  );
  tally.seconds = (performance.now() - start) / 1000;
  return tally;
}
