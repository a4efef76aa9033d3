import { rememberRequestId } from '../reporting/request-ids';

/** One answer from the gateway, with the body parsed when it is JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: any;
  text: string;
  /** Wall time of the whole exchange, headers to last byte. */
  ms: number;
  /** The gateway's X-Request-Id: what its logs and traces know the exchange by. */
  requestId: string | null;
}

export interface CallOptions {
  key?: string;
  /** Serialised as JSON with content-type application/json. */
  body?: unknown;
  /** Sent as-is (malformed JSON, other media types, invalid UTF-8). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** The client address a load balancer would put in X-Forwarded-For. */
  ip?: string;
  /** A request that takes longer than this fails the test instead of hanging it. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 15_000;

export type Call = (method: string, path: string, options?: CallOptions) => Promise<Answer>;

/** A plain HTTP client of the gateway at `baseUrl`, as any external developer would write it. */
export function httpClient(baseUrl: string): Call {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = {};
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (options.ip) headers['x-forwarded-for'] = options.ip;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    Object.assign(headers, options.headers);
    const body = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
    const started = performance.now();
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    const requestId = res.headers.get('x-request-id');
    if (requestId) rememberRequestId(requestId);
    return { status: res.status, headers: res.headers, body: parseJson(text), text, ms, requestId };
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Fails with the whole answer and its request id in the message: more than "expected 201, got 400". */
export function expectStatus(answer: Answer, status: number): Answer {
  if (answer.status !== status) {
    const id = answer.requestId ? ` (request id ${answer.requestId})` : '';
    throw new Error(`expected HTTP ${status}, got ${answer.status}${id}: ${answer.text.slice(0, 500)}`);
  }
  return answer;
}
