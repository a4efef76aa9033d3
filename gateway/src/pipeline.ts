import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TraceFields } from './http/tracing';
import {
  AccountSuspendedError,
  InsufficientScopeError,
  NotFoundError,
  UnauthorizedError,
} from '@community/contracts';
import { isCrossOrigin } from '@community/http-kit';
import { identify, type Identity } from './auth/identify';
import type { KeyResolver } from './auth/key-resolver';
import { stillSuspended } from './auth/suspension';
import type { UsageReporter } from './auth/usage-reporter';
import type { InFlightLimits } from './config';
import { dispatch, serveAvatar } from './dispatch';
import { freeWhenNotModified, type TaggedBody } from './http/conditional';
import { answerCors, vary, type AllowedOrigins } from './http/cors';
import { readBody } from './http/read-body';
import type { AvatarsBudget } from './limits/avatars-budget';
import {
  admit,
  clientMayPay,
  refundRequest,
  settleClientRequest,
  subjectFor,
  type Budgets,
} from './limits/budgets';
import { inFlightCallerOf, type InFlight } from './limits/in-flight';
import type { Decision, Subject } from './limits/decision';
import type { TwoWindowLimiter } from './limits/limiter';
import { clientIdOf, KnownClients } from './limits/oauth-clients';
import { matchesPrefix, type UpstreamName } from './proxy/route-table';
import type { Upstream } from './proxy/upstream';
import { AVATAR_ROUTE, matchRoute, type Route } from './routes/route-set';
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
  /** The path without the query, in its canonical spelling (routes/route-set.ts). */
  path: string;
  /** Bounded metric label: the route's template (`/api/v1/posts/{id}`), or `unmatched`. */
  route: string;
  accountId?: number;
  clientIp: string;
  /** The request's trace and span while tracing is on (http/tracing.ts). */
  trace?: TraceFields;
}

/** One request as the steps below learn about it. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  record: RequestRecord;
  route: Route | null;
  /** A notification stream (relayed, not counted in flight). */
  stream: boolean;
  identity: Identity;
  /** An OAuth client naming itself at the token or revocation endpoint. */
  clientId: string | null;
  /** The body, once the gateway has read it. */
  body?: Buffer;
  /** Gives the counted request back (an uncharged refusal). */
  refund: () => void;
  /** Gives it back when its `304` is free (DESIGN.md §10, §21). */
  refundNotModified: () => void;
  /** Whose budget it came out of. */
  subject?: Subject;
  /** Who holds its in-flight slot (DESIGN.md §21): its wait for a service takes turns by it (§18). */
  caller?: string;
}

export type Pipeline = (req: IncomingMessage, res: ServerResponse, record: RequestRecord) => Promise<void>;

/** Headers only the gateway may set: whatever a client sends under these names is dropped. */
const GATEWAY_ONLY = /^x-(user|internal)-/i;
/** …and these too when no trusted proxy stands in front to set them. */
const GATEWAY_OR_PROXY_ONLY = /^(x-(user|internal|forwarded)-|forwarded$)/i;
const NOBODY: Identity = { bearer: { kind: 'none' }, resolved: null, actor: null, session: null };
const nothing = () => undefined;

/**
 * The one public entry, as named steps: strip what only the gateway may say, identify the caller,
 * charge its budget, authorize the request by its route, hold one of the caller's slots in flight,
 * answer (the gateway itself, a stream, or the service), and settle an OAuth client's account.
 * A step that may finish at once returns nothing to wait for (most requests of a busy account:
 * a cached key, a leased budget).
 */
export function buildPipeline(deps: GatewayDeps): Pipeline {
  const clientMayNotSet = deps.trustsForwarded ? GATEWAY_ONLY : GATEWAY_OR_PROXY_ONLY;
  const knownClients = new KnownClients();
  return async (req, res, record) => {
    for (const name in req.headers) if (clientMayNotSet.test(name)) delete req.headers[name];
    const ctx = contextOf(req, res, record);
    if (ctx.route?.template === AVATAR_ROUTE) return serveAvatar(deps, ctx);
    if (answeredPreflight(deps, ctx)) return;
    const identified = identifyCaller(deps, ctx);
    if (identified) await identified;
    const charged = charge(deps, ctx, knownClients);
    if (charged) await charged;
    authorize(deps, ctx);
    if (!ctx.stream) await holdSlot(deps, ctx);
    await dispatch(deps, ctx);
    if (ctx.clientId !== null) await settleClient(deps, ctx, knownClients);
  };
}

function contextOf(req: IncomingMessage, res: ServerResponse, record: RequestRecord): RequestContext {
  const route = matchRoute(record.path);
  record.route = route?.template ?? 'unmatched';
  return {
    req,
    res,
    record,
    route,
    stream: route !== null && isStream(record.path),
    identity: NOBODY,
    clientId: null,
    refund: nothing,
    refundNotModified: nothing,
  };
}

/** A CORS preflight to the API is answered before any key or budget: it is free (DESIGN.md §10). */
function answeredPreflight(deps: GatewayDeps, { req, res, record }: RequestContext): boolean {
  if (!matchesPrefix(record.path, '/api/v1')) return false;
  if (answerCors(req, res, deps.corsOrigins)) {
    record.route = 'preflight';
    return true;
  }
  // The key API takes the account session cookie only from the account pages' own origin.
  if (isCrossOrigin(req.headers)) delete req.headers.cookie;
  return false;
}

/**
 * Who is asking: the key or token (the account pages authenticate with their session cookie, the
 * OAuth endpoints with the client's own credentials — whose body, which may name the client, is
 * read first).
 */
function identifyCaller(deps: GatewayDeps, ctx: RequestContext): Promise<void> | void {
  const { req, record } = ctx;
  if (carriesClientCredentials(record.path)) return identifyClient(deps, ctx);
  const identity = identify(deps.keys, req.headers, !matchesPrefix(record.path, '/account'));
  if (identity instanceof Promise) return identity.then((found) => identified(ctx, found));
  identified(ctx, identity);
}

async function identifyClient(deps: GatewayDeps, ctx: RequestContext) {
  const { req, res } = ctx;
  ctx.body = await readBody(req, res, deps.bodyTimeoutMs);
  ctx.clientId = clientIdOf(req.headers, ctx.body);
  identified(ctx, await identify(deps.keys, req.headers, false));
}

function identified(ctx: RequestContext, identity: Identity): void {
  ctx.identity = identity;
  if (identity.actor) ctx.record.accountId = identity.actor.userId;
}

/**
 * Counts the request against its budget (DESIGN.md §6): the account's, the pages' per address, a
 * known OAuth client's, or the address's. Refused uncharged when over; a key that could not be
 * checked is counted like no key, then refused.
 */
function charge(deps: GatewayDeps, ctx: RequestContext, knownClients: KnownClients): Promise<void> | void {
  const { clientId, record } = ctx;
  const known = clientId !== null && knownClients.has(clientId) ? clientId : null;
  if (known === null) return count(deps, ctx, null);
  return clientMayPay(deps.limiter, record.clientIp, deps).then((pays) =>
    count(deps, ctx, pays ? known : null),
  );
}

function count(deps: GatewayDeps, ctx: RequestContext, client: string | null): Promise<void> | void {
  const { res, record, identity } = ctx;
  const page = matchesPrefix(record.path, '/account');
  const subject = subjectFor({ resolved: identity.resolved, page, client, clientIp: record.clientIp }, deps);
  const decision = admit(deps.limiter, subject, res);
  if (decision instanceof Promise) return decision.then((decided) => charged(deps, ctx, subject, decided));
  charged(deps, ctx, subject, decision);
}

function charged(deps: GatewayDeps, ctx: RequestContext, subject: Subject, decision: Decision): void {
  if (ctx.identity.unavailable) throw ctx.identity.unavailable;
  ctx.subject = subject;
  ctx.refund = () => refundRequest(deps.limiter, subject, decision, ctx.res);
  if (freeWhenNotModified(ctx.req)) ctx.refundNotModified = ctx.refund;
}

/**
 * Whether the request may go on: a key for what needs one, no suspension, a route, the scope the
 * route asks for (DESIGN.md §5, §12, §21). Checks that need data stay in the services.
 */
function authorize(deps: GatewayDeps, { req, res, record, route, identity }: RequestContext): void {
  const { actor, resolved, bearer } = identity;
  const method = req.method ?? 'GET';
  if (!actor) {
    if (bearer.kind !== 'none')
      throw new UnauthorizedError('the API key or access token is invalid, revoked or expired');
    if (!isPublic(method, record.path, identity.session !== null))
      throw new UnauthorizedError('an API key is required: Authorization: Bearer <key>');
  } else if (resolved?.suspension && stillSuspended(resolved.suspension)) {
    throw new AccountSuspendedError(resolved.suspension);
  }
  if (!route) throw new NotFoundError('route');
  if (!actor) return;
  const scope = requiredScope(method, record.path);
  if (!actor.scopes.has(scope)) throw new InsufficientScopeError(scope);
  // Last-used times are kept for API keys; an access token's id is not a key id.
  if (resolved && resolved.credential !== 'access_token') deps.usage.used(resolved.key_id);
  // An answer for one credential is never another's (DESIGN.md §10).
  res.setHeader('Cache-Control', 'private, no-cache');
  vary(res, 'Authorization');
}

/** One of the caller's requests in flight (DESIGN.md §21): refused uncharged when all are taken. */
async function holdSlot(deps: GatewayDeps, ctx: RequestContext) {
  const { res, record, identity, refund } = ctx;
  const [caller, cap] = inFlightCallerOf(deps.inFlightLimits, identity, record.clientIp);
  ctx.caller = caller;
  try {
    await deps.inFlight.admit(caller, cap, res);
  } catch (refused) {
    refund();
    throw refused;
  }
}

/**
 * Only what an OAuth client evidently did itself — an answer of 200 — is paid from its budget; the
 * rest moves to the caller's address (limits/budgets.ts).
 */
async function settleClient(deps: GatewayDeps, ctx: RequestContext, knownClients: KnownClients) {
  const { res, record, clientId, subject } = ctx;
  if (clientId && res.statusCode === 200) knownClients.remember(clientId);
  await settleClientRequest(deps.limiter, subject!, record.clientIp, deps, res.statusCode);
}
