import fc from 'fast-check';
import type { Answer, Call } from '../client/http';
import { envelopeProblems } from '../contract';
import { newIp } from '../world';
import { jsonBody, namesOneOf, queryString, rawBody, type RawBody } from './arbitraries';
import type { Endpoint, FuzzIds } from './endpoints';

export interface FuzzCase {
  path: string;
  query: string;
  body: { json: unknown } | RawBody | null;
}

/** How many cases each property runs (E2E_FUZZ_RUNS), and a fixed seed when E2E_FUZZ_SEED is set. */
export function fuzzParameters(defaultRuns: number): fc.Parameters<unknown> {
  const seed = process.env.E2E_FUZZ_SEED;
  return {
    numRuns: Number(process.env.E2E_FUZZ_RUNS || defaultRuns),
    ...(seed ? { seed: Number(seed) } : {}),
    // Shrinking re-sends requests; a few dozen steps find a small case without running for minutes.
    endOnFailure: false,
    interruptAfterTimeLimit: 60_000,
  };
}

/** Cases for one endpoint: its path with real or hostile ids, a query string, a body or none. */
export function casesFor(endpoint: Endpoint, ids: FuzzIds) {
  const body = endpoint.body
    ? fc.oneof(
        {
          weight: 4,
          arbitrary: jsonBody(endpoint.body(ids), { partial: endpoint.method === 'PUT' }).map((json) => ({
            json,
          })),
        },
        { weight: 1, arbitrary: rawBody },
      )
    : endpoint.method === 'GET'
      ? fc.constant(null) // fetch, like browsers, sends no body with a GET
      : fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: rawBody });
  return fc.record({
    path: endpoint.path(ids),
    query: fc.oneof(fc.constant(''), queryString(endpoint.query ?? [])),
    body,
  });
}

/** Sends one case the way a client would and returns the answer. */
export function send(call: Call, method: string, c: FuzzCase, key: string | null): Promise<Answer> {
  const path = c.query ? `${c.path}?${c.query}` : c.path;
  // Anonymous calls come from a new address each, so the per-address budget never decides a case.
  const who = key ? { key } : { ip: newIp() };
  if (!c.body) return call(method, path, who);
  if ('json' in c.body) return call(method, path, { ...who, body: c.body.json });
  const headers: Record<string, string> = c.body.type ? { 'content-type': c.body.type } : {};
  return call(method, path, { ...who, raw: c.body.raw, headers });
}

/** Never a 5xx, always JSON in the documented envelope. */
export function assertContract(method: string, c: FuzzCase, answer: Answer): void {
  const problems = envelopeProblems(answer);
  if (answer.status >= 500) problems.unshift(`status ${answer.status}`);
  if (problems.length > 0) {
    const shown = c.body && 'json' in c.body ? JSON.stringify(c.body.json) : String(c.body?.raw ?? '');
    throw new Error(
      `${method} ${c.path}${c.query ? `?${c.query}` : ''} body=${shown.slice(0, 300)}\n` +
        `→ ${problems.join('; ')}\nHTTP ${answer.status}: ${answer.text.slice(0, 400)}`,
    );
  }
}

/** False when a segment of `path` after /api/v1 could name one of `ids` (the fuzz must not demote the admin). */
export function sparing(ids: number[]): (path: string) => boolean {
  return (path) =>
    path
      .replace(/^\/api\/v1\//, '')
      .split('/')
      .every((segment) => !namesOneOf(segment, ids));
}
