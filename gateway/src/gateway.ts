import type { Request, RequestHandler, Response } from 'express';
import {
  InsufficientScopeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  type Actor,
} from '@community/contracts';
import { signIdentity } from '@community/http-kit';
import { readBearer } from './auth/bearer';
import type { KeyResolver } from './auth/key-resolver';
import type { UsageReporter } from './auth/usage-reporter';
import { setLimitHeaders } from './limits/headers';
import type { Subject, TwoWindowLimiter } from './limits/limiter';
import { routeFor, type UpstreamName } from './proxy/route-table';
import type { Upstream } from './proxy/upstream';
import { carriesClientCredentials, isPublic, requiredScope } from './scopes';

export interface GatewayDeps {
  internalToken: string;
  keys: KeyResolver;
  usage: UsageReporter;
  limiter: TwoWindowLimiter;
  upstreams: Record<UpstreamName, Upstream>;
  anonymous: { hourly: number; daily: number };
}

export const API_VERSION = '1.0.0';

/** Headers only the gateway may set: whatever a client sends under these names is dropped. */
const TRUSTED_HEADER = /^x-(user|internal)-/i;
const NO_BEARER = { kind: 'none' } as const;

/**
 * The one public entry: identify the caller, count the request against its budget, check the scope
 * a request needs without data, then forward it with a signed identity to the service that owns it.
 */
export function gateway(deps: GatewayDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      for (const name of Object.keys(req.headers)) if (TRUSTED_HEADER.test(name)) delete req.headers[name];
      const path = req.path;
      const bearer = carriesClientCredentials(path) ? NO_BEARER : readBearer(req.headers.authorization);
      const resolved = bearer.kind === 'key' ? await resolveOrUnavailable(deps.keys, bearer.key) : null;
      const actor: Actor | null = resolved
        ? { userId: resolved.user_id, role: resolved.role, scopes: new Set(resolved.scopes) }
        : null;
      // The access log reads the account from here (the gateway keeps no log context).
      if (actor) res.locals.actor = actor;

      const clientIp = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      const subject: Subject = resolved
        ? { key: `acct:${resolved.user_id}`, kind: 'account', ...resolved.limits }
        : { key: `ip:${clientIp}`, kind: 'anonymous', ...deps.anonymous };
      const decision = await deps.limiter.consume(subject);
      setLimitHeaders(res, decision.shown);
      if (!decision.allowed) {
        throw new RateLimitedError(
          `rate limit exceeded; retry in ${decision.retryAfter} seconds`,
          decision.retryAfter,
        );
      }

      const hasSession = /(?:^|;\s*)cp_session=/.test(req.headers.cookie ?? '');
      if (!actor) {
        if (bearer.kind !== 'none')
          throw new UnauthorizedError('the API key or access token is invalid, revoked or expired');
        if (!isPublic(req.method, path, hasSession))
          throw new UnauthorizedError('an API key is required: Authorization: Bearer <key>');
      } else {
        const scope = requiredScope(req.method, path);
        if (!actor.scopes.has(scope)) throw new InsufficientScopeError(scope);
        // Last-used times are kept for API keys; an access token's id is not a key id.
        if (resolved && resolved.credential !== 'access_token') deps.usage.used(resolved.key_id);
      }

      if ((path === '/api/v1' || path === '/api/v1/') && (req.method === 'GET' || req.method === 'HEAD')) {
        res.json({ success: true, data: { name: 'Community Platform API', version: API_VERSION } });
        return;
      }
      const route = routeFor(path);
      if (!route) return next();
      await forward(deps, req, res, route.upstream, actor, clientIp);
    } catch (err) {
      next(err);
    }
  };
}

async function forward(
  deps: GatewayDeps,
  req: Request,
  res: Response,
  name: UpstreamName,
  actor: Actor | null,
  clientIp: string,
) {
  if (!carriesClientCredentials(req.path)) delete req.headers.authorization;
  // Cookies belong to the account pages and the key API only.
  if (name !== 'users') delete req.headers.cookie;
  Object.assign(
    req.headers,
    signIdentity(deps.internalToken, { method: req.method, url: req.originalUrl, actor, clientIp }),
  );
  const upstream = deps.upstreams[name];
  try {
    await upstream.proxy(req, res);
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

async function resolveOrUnavailable(keys: KeyResolver, key: string) {
  try {
    return await keys.resolve(key);
  } catch {
    // users-service is down or its breaker is open: we cannot tell a good key from a bad one.
    throw new ServiceUnavailableError('API keys cannot be verified right now; try again shortly', 5);
  }
}
