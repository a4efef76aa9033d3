import { OPERATIONS } from './generated/operations';
import { streamEvents } from './stream';
import { send, type Outgoing, type TransportOptions } from './transport';
import type {
  CallOptions,
  Item,
  OperationId,
  OperationMethods,
  PageOperationId,
  Params,
  RateLimit,
  StreamOptions,
} from './types';

export interface ClientOptions {
  /** Where the API is: the gateway's origin, e.g. `https://community.example` (a trailing `/api/v1` is fine). */
  baseUrl: string;
  /** An API key (`cp_live_…`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Or an OAuth access token (`cpo_…`; see `@community/sdk/oauth`). */
  accessToken?: string;
  /** Further attempts after the first for network errors, 408, 429, 502, 503, 504. Default 2. */
  maxRetries?: number;
  /** Per attempt, until the answer is read (a stream: until it opens). Default 30 s. */
  timeoutMs?: number;
  /** The longest `Retry-After` worth waiting for; a longer one rejects at once. Default 60 s. */
  maxRetryWaitMs?: number;
  fetch?: typeof fetch;
}

export type Client = OperationMethods & {
  /** Every item of a list, page after page, following `next_cursor` (or the `Link` header). */
  paginate<Id extends PageOperationId>(operationId: Id, params?: Params<Id>): AsyncIterableIterator<Item<Id>>;
  /** The limit headers of the latest answer that carried them; null before the first. */
  readonly lastRateLimit: RateLimit | null;
};

type Descriptor = (typeof OPERATIONS)[OperationId];
type Loose = Partial<Record<'path' | 'query' | 'body', Record<string, unknown>>> & CallOptions;

const has = (d: Descriptor, flag: 'idempotent' | 'form' | 'redirect') => flag in d;

function urlOf(base: string, id: string, d: Descriptor, params: Loose): string {
  const path = d.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params.path?.[name];
    if (value === undefined || value === null) throw new TypeError(`${id}: path.${name} is required`);
    return encodeURIComponent(String(value));
  });
  const url = new URL(base + path);
  for (const [name, value] of Object.entries(params.query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(one));
  }
  return url.toString();
}

function encode(body: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) if (value !== undefined) form.append(name, String(value));
  return form.toString();
}

/** What every call of one client shares: where the API is, the credential and the transport. */
interface Connection {
  base: string;
  credential: string | undefined;
  transport: TransportOptions;
}

function outgoing(conn: Connection, id: OperationId, params: Loose, url?: string): Outgoing {
  const d: Descriptor = OPERATIONS[id];
  const headers: Record<string, string> = { Accept: 'application/json' };
  // The OAuth protocol endpoints authenticate the app (Basic or form fields), never a bearer.
  if (conn.credential && !has(d, 'form')) headers.Authorization = `Bearer ${conn.credential}`;
  let body: string | undefined;
  if (params.body !== undefined) {
    headers['Content-Type'] = has(d, 'form') ? 'application/x-www-form-urlencoded' : 'application/json';
    body = has(d, 'form') ? encode(params.body) : JSON.stringify(params.body);
  }
  if (has(d, 'idempotent')) headers['Idempotency-Key'] = params.idempotencyKey ?? crypto.randomUUID();
  Object.assign(headers, params.headers);
  return {
    method: d.method,
    url: url ?? urlOf(conn.base, id, d, params),
    headers,
    body,
    signal: params.signal,
    redirect: has(d, 'redirect'),
  };
}

async function call(conn: Connection, id: OperationId, params: Loose = {}, url?: string) {
  const answer = 'answer' in OPERATIONS[id] ? 'text' : 'json';
  return send(conn.transport, outgoing(conn, id, params, url), async (res) => {
    const text = await res.text();
    return answer === 'text' || text === '' ? text : (JSON.parse(text) as unknown);
  });
}

async function* paginate(conn: Connection, id: OperationId, params: Loose = {}): AsyncGenerator<unknown> {
  let url: string | undefined;
  for (;;) {
    const { value, headers } = await call(conn, id, params, url);
    const page = value as { data: unknown[]; pagination?: { next_cursor?: string | null } };
    yield* page.data;
    const cursor = page.pagination?.next_cursor;
    const next = cursor ? undefined : nextLink(headers.get('link'), conn.base);
    if (!cursor && !next) return;
    if (cursor) {
      const { page: _page, ...query } = params.query ?? {};
      params = { ...params, query: { ...query, cursor } };
    }
    url = next;
  }
}

function stream(conn: Connection, id: OperationId, opts: StreamOptions = {}) {
  const open = async (lastEventId: string | null) => {
    const req = outgoing(conn, id, { headers: opts.headers, signal: opts.signal });
    req.headers.Accept = 'text/event-stream';
    if (lastEventId) req.headers['Last-Event-ID'] = lastEventId;
    return (await send(conn.transport, req, async (res) => res)).value;
  };
  return streamEvents(open, opts);
}

export function createClient(options: ClientOptions): Client {
  let lastRateLimit: RateLimit | null = null;
  const conn: Connection = {
    base: options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, ''),
    credential: options.apiKey ?? options.accessToken,
    transport: {
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 60_000,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      onRateLimit: (limit) => (lastRateLimit = limit),
    },
  };
  const client: Record<string, unknown> = {
    paginate: (id: OperationId, params?: Loose) => paginate(conn, id, params),
    get lastRateLimit() {
      return lastRateLimit;
    },
  };
  for (const id of Object.keys(OPERATIONS) as OperationId[]) {
    const d: Descriptor = OPERATIONS[id];
    client[id] =
      'answer' in d && d.answer === 'stream'
        ? (opts?: StreamOptions) => stream(conn, id, opts)
        : async (params?: Loose) => (await call(conn, id, params)).value;
  }
  return client as Client;
}

/** The `rel="next"` target of a `Link` header (RFC 8288), resolved against the API's origin. */
export function nextLink(link: string | null, base: string): string | undefined {
  const match = /<([^>]*)>\s*;[^,]*\brel="?next"?/.exec(link ?? '');
  return match ? new URL(match[1]!, `${base}/api/v1/`).toString() : undefined;
}
