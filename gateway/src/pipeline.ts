import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  API_VERSION,
  InsufficientScopeError,
  NotFoundError,
  type ResolvedKey,
  ServiceUnavailableError,
  UnauthorizedError,
  AccountSuspendedError,
  type Actor,
} from '@community/contracts';
import {
  EVENT_STREAM_HEADERS,
  hasBody,
  isCrossOrigin,
  MethodNotAllowedError,
  signIdentity,
} from '@community/http-kit';
import { readBearer } from './auth/bearer';
import type { KeyResolver } from './auth/key-resolver';
import { stillSuspended } from './auth/suspension';
import type { UsageReporter } from './auth/usage-reporter';
import { OPENAPI_PATH, sendDocument } from './docs/openapi-document';
import {
  clientMayPay,
  consume,
  consumeHeld,
  refundRequest,
  settleClientRequest,
  subjectFor,
  type Budgets,
} from './limits/budgets';
import type { AvatarsBudget } from './limits/avatars-budget';
import type { InFlight } from './limits/in-flight';
import type { TwoWindowLimiter } from './limits/limiter';
import type { InFlightLimits } from './config';
import { clientIdOf, KnownClients } from './limits/oauth-clients';
import { freeWhenNotModified, sendTagged, tagged, type TaggedBody } from './http/conditional';
import { answerCors, vary, type AllowedOrigins } from './http/cors';
import { readBody } from './http/read-body';
import { oncePer } from './once-per';
import { matchesPrefix, type UpstreamName } from './proxy/route-table';
import { AVATAR_ROUTE, matchRoute } from './routes/route-set';
import type { Upstream } from './proxy/upstream';
import { carriesClientCredentials, isPublic, isStream, requiredScope } from './scopes';
import type { OpenStreams } from './streams/open-streams';

export interface GatewayDeps extends Budgets {
  internalToken: string;
  keys: KeyResolver;
  usage: UsageReporter;
  limiter: TwoWindowLimiter;
  upstreams: Record<UpstreamName, Upstream>;
  /** How long a client may take to send its body (BODY_TIMEOUT_MS). */
  bodyTimeoutMs: number;
  /** The serialised OpenAPI document (docs/openapi-document.ts). */
  openapi: TaggedBody;
  /**
   * Whether a proxy in front may set `X-Forwarded-*` (TRUST_PROXY). When not, the client's are
   * dropped and the services see only what the gateway itself forwards (protocol, host, address).
   */
  trustsForwarded: boolean;
  /** CORS_ALLOWED_ORIGINS: whose browser apps may call /api/v1. */
  corsOrigins: AllowedOrigins;
  /** The notification streams relayed: their cap per account, and closing them on revocation. */
  streams: OpenStreams;
  /** Each caller's requests in flight (DESIGN.md §21), and how many each kind of caller may have. */
  inFlight: InFlight;
  inFlightLimits: InFlightLimits;
  /** The default avatars' budget per address. */
  avatars: AvatarsBudget;
}

/** What the access log and metrics need to know about one request, filled in as it is served. */
export interface RequestRecord {
  requestId: string;
  /** The path without the query (express's `req.path`). */
  path: string;
  /** Bounded metric label: the route's template (`/api/v1/posts/{id}`), or `unmatched`. */
  route: string;
  accountId?: number;
  clientIp: string;
}

export type Pipeline = (req: IncomingMessage, res: ServerResponse, record: RequestRecord) => Promise<void>;

/** Headers only the gateway may set: whatever a client sends under these names is dropped. */
const GATEWAY_ONLY = /^x-(user|internal)-/i;
/** …and these too when no trusted proxy stands in front to set them. */
const GATEWAY_OR_PROXY_ONLY = /^(x-(user|internal|forwarded)-|forwarded$)/i;
const NO_BEARER = { kind: 'none' } as const;
const INDEX = tagged(
  Buffer.from(
    JSON.stringify({ success: true, data: { name: 'Community Platform API', version: API_VERSION } }),
  ),
);

/**
 * The one public entry: identify the caller, count the request against its budget, check the scope
 * a request needs without data, then forward it with a signed identity to the service that owns it.
 */
export function buildPipeline(deps: GatewayDeps): Pipeline {
  const clientMayNotSet = deps.trustsForwarded ? GATEWAY_ONLY : GATEWAY_OR_PROXY_ONLY;
  const knownClients = new KnownClients();
  return async (req, res, record) => {
    for (const name in req.headers) if (clientMayNotSet.test(name)) delete req.headers[name];
    const { path, clientIp } = record;
    const route = matchRoute(path);
    record.route = route?.template ?? 'unmatched';
    if (route?.template === AVATAR_ROUTE) {
      await serveAvatar(deps, req, res, record);
      return;
    }
    const api = matchesPrefix(path, '/api/v1');
    // Before any key or budget: a preflight is free (DESIGN.md §10).
    if (api && answerCors(req, res, deps.corsOrigins)) {
      record.route = 'preflight';
      return;
    }
    // The key API takes the account session cookie only from the account pages' own origin.
    if (api && isCrossOrigin(req.headers)) delete req.headers.cookie;
    const page = matchesPrefix(path, '/account');
    const credentials = carriesClientCredentials(path);
    // Only the OAuth endpoints need the body before the limiter: it may name the client.
    let body = credentials ? await readBody(req, res, deps.bodyTimeoutMs) : undefined;
    const clientId = credentials ? clientIdOf(req.headers, body) : null;
    // Pages authenticate with their session cookie, the OAuth endpoints with the client's own credentials.
    const bearer = page || credentials ? NO_BEARER : readBearer(req.headers.authorization);
    // Awaited only when there is something to wait for: a key the cache holds is known at once.
    const found = bearer.kind === 'key' ? lookUp(deps.keys, bearer.key) : NOBODY;
    const lookup = found instanceof Promise ? await found : found;
    const { resolved } = lookup;
    const actor = resolved ? actorOf(resolved) : null;
    if (actor) record.accountId = actor.userId;

    const known = clientId && knownClients.has(clientId) ? clientId : null;
    const client = known && (await clientMayPay(deps.limiter, clientIp, deps)) ? known : null;
    const subject = subjectFor({ resolved, page, client, clientIp }, deps);
    const decision = consumeHeld(deps.limiter, subject, res) ?? (await consume(deps.limiter, subject, res));
    if (lookup.unavailable) throw lookup.unavailable;
    const refund = () => refundRequest(deps.limiter, subject, decision, res);
    // A 304 costs nothing when the client named what it has and did not search (DESIGN.md §10, §21).
    const refundNotModified = freeWhenNotModified(req) ? refund : () => undefined;

    const session = sessionOf(req.headers.cookie);
    if (!actor) {
      if (bearer.kind !== 'none')
        throw new UnauthorizedError('the API key or access token is invalid, revoked or expired');
      if (!isPublic(req.method ?? 'GET', path, session !== null))
        throw new UnauthorizedError('an API key is required: Authorization: Bearer <key>');
    } else {
      // Every credential of a suspended account, whatever it asks (DESIGN.md §12).
      const suspension = resolved?.suspension;
      if (suspension && stillSuspended(suspension)) throw new AccountSuspendedError(suspension);
    }
    if (!route) throw new NotFoundError('route');
    if (actor) {
      const scope = requiredScope(req.method ?? 'GET', path);
      if (!actor.scopes.has(scope)) throw new InsufficientScopeError(scope);
      // Last-used times are kept for API keys; an access token's id is not a key id.
      if (resolved && resolved.credential !== 'access_token') deps.usage.used(resolved.key_id);
      // An answer for one credential is never another's (DESIGN.md §10).
      res.setHeader('Cache-Control', 'private, no-cache');
      vary(res, 'Authorization');
    }

    const stream = isStream(path);
    if (!stream) {
      const [caller, cap] = inFlightCallerOf(deps.inFlightLimits, resolved, session, clientIp);
      await deps.inFlight.admit(caller, cap, res).catch((refused: unknown) => {
        refund();
        throw refused;
      });
    }
    if (route.upstream === null) {
      answerItself(req, res, deps, path, refundNotModified);
      return;
    }
    if (stream && resolved && bearer.kind === 'key') {
      await relayStream(deps, req, res, route.upstream, actor, record, resolved, bearer.key);
      return;
    }
    // Read the whole body before the upstream's clock starts: a slow client is never its failure.
    if (hasBody(req.headers)) body ??= await readBody(req, res, deps.bodyTimeoutMs);
    await forward(deps, req, res, route.upstream, actor, record, body, (status) => {
      if (status === 304) refundNotModified();
    });
    if (!credentials) return;
    if (clientId && res.statusCode === 200) knownClients.remember(clientId);
    await settleClientRequest(deps.limiter, subject, clientIp, deps, res.statusCode);
  };
}

/**
 * The default avatars: no key and none of the API's budgets, but a budget per address of their own
 * (DESIGN.md §21). A body sent here is read like any other: a slow client is never the service's failure.
 */
async function serveAvatar(
  deps: GatewayDeps,
  req: IncomingMessage,
  res: ServerResponse,
  record: RequestRecord,
) {
  await deps.avatars.consume(record.clientIp);
  delete req.headers.authorization;
  delete req.headers.cookie;
  const body = await readBody(req, res, deps.bodyTimeoutMs);
  await forward(deps, req, res, 'users', null, record, body);
}

/** The routes the gateway answers itself: the API's version and its OpenAPI document. */
function answerItself(
  req: IncomingMessage,
  res: ServerResponse,
  deps: GatewayDeps,
  path: string,
  refundNotModified: () => void,
) {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') throw new MethodNotAllowedError(['GET', 'HEAD']);
  if (path === OPENAPI_PATH) sendDocument(req, res, deps.openapi, refundNotModified);
  else sendTagged(req, res, INDEX, refundNotModified);
}

/**
 * A notification stream: its slot of the account's, then relayed for as long as it lasts. A `HEAD`
 * learns the stream's headers at once (DESIGN.md §21): the service would hold it open like a `GET`.
 */
async function relayStream(
  deps: GatewayDeps,
  req: IncomingMessage,
  res: ServerResponse,
  upstream: UpstreamName,
  actor: Actor | null,
  record: RequestRecord,
  resolved: ResolvedKey,
  key: string,
) {
  if (req.method === 'HEAD') {
    res.writeHead(200, EVENT_STREAM_HEADERS).end();
    return;
  }
  await deps.streams.admit(resolved, key, res);
  await forward(deps, req, res, upstream, actor, record, undefined, undefined, 'stream');
}

/**
 * Whose requests in flight this one joins (DESIGN.md §21), and how many they may be: the account
 * behind a key; the session on the account pages (and the key API it calls); else the address.
 */
function inFlightCallerOf(
  limits: InFlightLimits,
  resolved: ResolvedKey | null,
  session: string | null,
  clientIp: string,
): [caller: string, cap: number] {
  if (resolved) return [`acct:${resolved.user_id}`, limits[resolved.plan]];
  if (session) return [`session:${hash('sha256', session, 'base64url')}`, limits.free];
  return [`ip:${clientIp}`, limits.anonymous];
}

/** The account pages' session cookie, when the request carries one. */
function sessionOf(cookie: string | undefined): string | null {
  return cookie ? (/(?:^|;\s*)cp_session=([^;]*)/.exec(cookie)?.[1] ?? null) : null;
}

async function forward(
  deps: GatewayDeps,
  req: IncomingMessage,
  res: ServerResponse,
  name: UpstreamName,
  actor: Actor | null,
  { path, clientIp }: RequestRecord,
  body: Buffer | undefined,
  onAnswer?: (status: number) => void,
  how: 'proxy' | 'stream' = 'proxy',
) {
  if (!carriesClientCredentials(path)) delete req.headers.authorization;
  // Cookies belong to the account pages and the key API only.
  if (name !== 'users') delete req.headers.cookie;
  const method = req.method ?? 'GET';
  // Signed over the path the proxy really sends, whatever it makes of the one the client sent.
  const headersFor = (url: string) => signIdentity(deps.internalToken, { method, url, actor, clientIp });
  const upstream = deps.upstreams[name];
  try {
    await upstream[how](req, res, { body, headersFor, onAnswer });
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const open = (err as { code?: string }).code === 'EOPENBREAKER';
    throw new ServiceUnavailableError(
      open ? `the ${name} service is unavailable; try again shortly` : `the ${name} service did not answer`,
      upstream.retryAfterSeconds,
    );
  }
}

/** Each credential's actor, made once for each resolved value the key cache holds (not per request). */
const actorOf = oncePer((resolved: ResolvedKey): Actor => ({
  userId: resolved.user_id,
  role: resolved.role,
  scopes: new Set(resolved.scopes),
  expiresAt: resolved.expires_at ? new Date(resolved.expires_at) : null,
}));

interface Lookup {
  resolved: ResolvedKey | null;
  /** Set when the key could not be checked: the request is counted like one without a key, then refused. */
  unavailable?: ServiceUnavailableError;
}

const NOBODY: Lookup = { resolved: null };

function lookUp(keys: KeyResolver, key: string): Lookup | Promise<Lookup> {
  const known = keys.known(key);
  if (known === undefined) return resolving(keys, key);
  return known ? { resolved: known } : NOBODY;
}

async function resolving(keys: KeyResolver, key: string): Promise<Lookup> {
  try {
    return { resolved: await keys.resolve(key) };
  } catch {
    // users-service is down or its breaker is open: we cannot tell a good key from a bad one.
    const unavailable = new ServiceUnavailableError(
      'API keys cannot be verified right now; try again shortly',
      5,
    );
    return { resolved: null, unavailable };
  }
}
