import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { Router } from 'express';
import {
  errorHandler,
  hasBody,
  logAccess,
  mountHealth,
  notFound,
  PROBE_PATHS,
  requestRecorder,
  takeRequestId,
  type HealthOptions,
} from '@community/http-kit';
import type { Logger } from '@community/logging';
import { docsRouter } from './docs/docs-page';
import { publishedDocument } from './docs/openapi-document';
import { buildPipeline, type GatewayDeps, type RequestRecord } from './pipeline';
import { admit, pagesSubject } from './limits/budgets';
import { clientIpOf, type TrustProxy } from './http/client-ip';
import { behindClose, ClientGoneError } from './http/read-body';
import { serverSpan } from './http/tracing';
import { sendError, sendJson } from './http/respond';
import { canonicalPath } from './routes/route-set';

/** More request headers than this are refused with `431` (DESIGN.md §21). */
const MAX_HEADERS = 100;

export interface GatewayAppDeps extends Omit<GatewayDeps, 'openapi' | 'trustsForwarded'> {
  logger: Logger;
  health: HealthOptions;
  trustProxy: TrustProxy;
}

const isDocsPage = (path: string) => path === '/docs' || path.startsWith('/docs/');

/**
 * The gateway's request listener. Every API request goes through the gateway pipeline on bare
 * node:http — on the proxied hot path express's router cost a share of the gateway's CPU that
 * bench/RESULTS.md records ("the hot path without express") — while the
 * probes (no key, no limits) and the docs page (no key, the pages budget: see docs/docs-page.ts)
 * are a small express app.
 */
export function buildApp(deps: GatewayAppDeps): RequestListener {
  const { logger } = deps;
  const ops = opsApp(deps);
  const pipeline = buildPipeline({
    ...deps,
    openapi: publishedDocument(),
    trustsForwarded: deps.trustProxy !== false,
  });
  const record = requestRecorder(deps.health.registry);
  const clientIp = clientIpOf(deps.trustProxy);

  const fail = (req: IncomingMessage, res: ServerResponse, entry: RequestRecord) => (err: unknown) =>
    answerFailure(req, res, entry, err, logger);

  return (req, res) => {
    // Never answered: the connection closes once the answer before it is out (read-body.ts).
    if (behindClose(req)) return;
    const started = performance.now();
    const requestId = takeRequestId(req, res);
    const path = canonicalise(req);
    const entry: RequestRecord = {
      requestId,
      path,
      route: 'unmatched',
      clientIp: clientIp(req),
      // While tracing is on: the request's server span, named on its access line.
      trace: PROBE_PATHS.has(path) ? undefined : serverSpan(req, res, path, () => entry.route),
    };
    res.once('finish', () => {
      const durationMs = performance.now() - started;
      const method = req.method ?? 'GET';
      record(method, entry.route, res.statusCode, durationMs / 1000);
      // Every access line is info or debug: a logger above info writes none, so nothing is gathered.
      if (logger.isLevelEnabled('info'))
        logAccess(logger, { method, ...entry, status: res.statusCode, durationMs });
    });

    // Node keeps at most 2,000 headers and drops the rest unseen: refused before anything reads one.
    if (req.rawHeaders.length > 2 * MAX_HEADERS) return refuseHeaders(req, res);
    if (PROBE_PATHS.has(entry.path)) {
      entry.route = entry.path;
      ops(req, res);
      return;
    }
    if (isDocsPage(entry.path)) {
      entry.route = '/docs';
      Promise.resolve()
        .then(() => admit(deps.limiter, pagesSubject(entry.clientIp, deps.pagesHourly), res))
        .then(() => ops(req, res), fail(req, res, entry));
      return;
    }
    pipeline(req, res, entry).catch(fail(req, res, entry));
  };
}

/** The probes (no key, no limits) and the docs page (no key, the pages budget). */
function opsApp(deps: GatewayAppDeps): express.Express {
  const ops = express();
  ops.disable('x-powered-by');
  ops.disable('etag');
  const probes = Router();
  mountHealth(probes, deps.health);
  ops.use(probes);
  ops.use('/docs', docsRouter());
  ops.use(notFound(), errorHandler(deps.logger));
  return ops;
}

function answerFailure(
  req: IncomingMessage,
  res: ServerResponse,
  entry: RequestRecord,
  err: unknown,
  logger: Logger,
): void {
  // Nobody is left to answer.
  if (err instanceof ClientGoneError) return void res.destroy();
  // Refused before its body was read (401, 404, 429 …): the connection closes once the client has
  // sent the rest, or after the lingering bound — a body that never finishes holds no socket.
  if (!req.complete && hasBody(req.headers) && !res.headersSent) res.setHeader('Connection', 'close');
  sendError(req, res, err, entry.trace ? logger.child(entry.trace) : logger, {
    method: req.method ?? 'GET',
    path: entry.path,
    requestId: entry.requestId,
  });
}

function refuseHeaders(req: IncomingMessage, res: ServerResponse): void {
  sendJson(req, res, 431, {
    error: 'payload_too_large',
    message: `a request may carry at most ${MAX_HEADERS} headers`,
  });
}

/**
 * The path without its query, in its one canonical spelling (routes/route-set.ts), which `req.url`
 * takes too: routing, scopes, the signature and the service all see the same path.
 */
function canonicalise(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const canonical = canonicalPath(path);
  if (canonical !== path) req.url = query === -1 ? canonical : canonical + url.slice(query);
  return canonical;
}
