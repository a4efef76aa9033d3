/**
 * When the slow answers come (issue 47: "how many requests over 10 ms, and when"). wrk reports a
 * histogram and nothing of time; this sends one request after another for a while, on one kept-alive
 * connection, and keeps each one's start and duration. Slow answers that recur at a fixed gap point at
 * a periodic job; ones that come together point at a pause (a GC, a checkpoint). The client is Node:
 * its own pauses count too, which the same probe against posts-service directly shows.
 */
import http from 'node:http';
import { getStatus, percentile } from './measure';

export interface Probe {
  url: string;
  /** The requests to rotate over, as in a wrk plan. */
  requests: { path: string; headers: Record<string, string> }[];
}

export interface Timeline {
  /** Each answer's start, in ms from the first, and its duration in ms. */
  answers: { at: number; ms: number }[];
}

/** One request at a time for `seconds`. */
export async function record({ url, requests }: Probe, seconds: number): Promise<Timeline> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Timeline['answers'] = [];
  const start = performance.now();
  try {
    for (let i = 0; performance.now() - start < seconds * 1000; i++) {
      const { path, headers } = requests[i % requests.length]!;
      const sent = performance.now();
      const status = await getStatus(agent, `${url}${path}`, headers, 5_000);
      if (status >= 400) throw new Error(`GET ${path}: ${status}`);
      answers.push({ at: sent - start, ms: performance.now() - sent });
    }
  } finally {
    agent.destroy();
  }
  return { answers };
}

/** The answers over `slowMs`: how many, at what second, and the gaps between them. */
export function slowAnswers({ answers }: Timeline, slowMs = 10): string[] {
  const slow = answers.filter((a) => a.ms > slowMs);
  const lines = [`${answers.length} answers, ${slow.length} over ${slowMs} ms`];
  if (slow.length === 0) return lines;
  const shown = slow
    .slice(0, 40)
    .map((a) => `${(a.at / 1000).toFixed(2)} s (${a.ms.toFixed(0)} ms)`)
    .join(', ');
  lines.push(`  at ${shown}${slow.length > 40 ? ', …' : ''}`);
  const gaps = slow.slice(1).map((a, i) => (a.at - slow[i]!.at) / 1000);
  if (gaps.length > 0) {
    const sorted = [...gaps].sort((a, b) => a - b);
    lines.push(
      `  gaps between them: median ${percentile(sorted, 50).toFixed(2)} s, shortest ${sorted[0]!.toFixed(2)} s, ` +
        `longest ${sorted.at(-1)!.toFixed(2)} s`,
    );
  }
  return lines;
}
