import http from 'node:http';
import { signIdentity } from '@community/http-kit';

const CLIENT = process.env.BENCH_CLIENT ?? 'http';
if (CLIENT !== 'http' && CLIENT !== 'fetch') throw new Error('BENCH_CLIENT must be http or fetch');

/**
 * The `p`th percentile (0–100) of `values` by nearest rank: the smallest value with at least `p` %
 * of them at or below it (of 100 values, p99 is the 99th, not the largest); NaN when there are none.
 */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/**
 * `requests` GETs of `/api/v1${path}` straight to a service, signed as the gateway signs them for
 * `concurrency` readers, each with one in flight. Latency percentiles in ms, throughput, and the last answer's body.
 *
 * The client is node:http on a keep-alive agent, reading each answer as bytes: what is timed is the
 * service and the wire. `fetch` (BENCH_CLIENT=fetch) builds a Request, Headers, a Response and a web
 * stream per request, and its JSON was parsed inside the timing too; on this 2-core machine that
 * client-side work and its garbage collections added 1–3 ms to the p99 of a 2 ms lookup.
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
  let last = 'null';
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const started = performance.now();
  await Promise.all(
    // One reader per request in flight, as `concurrency` users would be (a service gives one caller
    // only a few searches at once).
    Array.from({ length: concurrency }, async (_, worker) => {
      const actor = { userId: 1 + worker, role: 'member' as const, scopes: new Set(['read' as const]) };
      while (next < requests) {
        next++;
        const t0 = performance.now();
        const headers = signIdentity(token, { method: 'GET', url, actor });
        const { status, text } =
          CLIENT === 'fetch'
            ? await viaFetch(baseUrl + url, headers)
            : await get(agent, baseUrl + url, headers);
        timings.push(performance.now() - t0);
        if (status !== 200) throw new Error(`${path} answered ${status}: ${text}`);
        last = text;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    p50: percentile(timings, 50),
    p99: percentile(timings, 99),
    rps: requests / seconds,
    body: JSON.parse(last) as unknown,
  };
}

async function viaFetch(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  return { status: res.status, text: await res.text() };
}

function get(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** A GET on `agent` whose body is read and dropped: its status, or an error after `timeoutMs` of silence. */
export function getStatus(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}
