import { signIdentity } from '@community/http-kit';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * `requests` GETs of `/api/v1${path}` straight to a service, signed as the gateway signs them for
 * `concurrency` readers, each with one in flight. Latency percentiles in ms, throughput, and the last answer's body.
 */
export async function measure(
  baseUrl: string,
  token: string,
  path: string,
  concurrency: number,
  requests: number,
) {
  const url = `/api/v1${path}`;
  const timings: number[] = [];
  let next = 0;
  let body: unknown;
  const started = performance.now();
  await Promise.all(
    // One reader per request in flight, as `concurrency` users would be (a service gives one caller
    // only a few searches at once).
    Array.from({ length: concurrency }, async (_, worker) => {
      const actor = { userId: 1 + worker, role: 'member' as const, scopes: new Set(['read' as const]) };
      while (next < requests) {
        next++;
        const t0 = performance.now();
        const res = await fetch(baseUrl + url, {
          headers: signIdentity(token, { method: 'GET', url, actor }),
        });
        body = await res.json();
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
        timings.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  timings.sort((a, b) => a - b);
  return { p50: percentile(timings, 50), p99: percentile(timings, 99), rps: requests / seconds, body };
}
