import { API_VERSION, OverloadedError, ServiceUnavailableError } from '@community/contracts';
import { EVENT_STREAM_HEADERS, hasBody, MethodNotAllowedError, signIdentity } from '@community/http-kit';
import { OPENAPI_PATH, sendDocument } from './docs/openapi-document';
import { sendTagged, tagged } from './http/conditional';
import { readBody } from './http/read-body';
import type { GatewayDeps, RequestContext } from './pipeline';
import type { UpstreamName } from './proxy/route-table';
import { carriesClientCredentials } from './scopes';

const INDEX = tagged(
  Buffer.from(
    JSON.stringify({ success: true, data: { name: 'Community Platform API', version: API_VERSION } }),
  ),
);

/**
 * The request's answer, once it may have one: the gateway's own (the version, the document), a
 * notification stream relayed, or the service's answer proxied.
 */
export async function dispatch(deps: GatewayDeps, ctx: RequestContext): Promise<void> {
  const upstream = ctx.route!.upstream;
  if (upstream === null) return answerItself(deps, ctx);
  const { bearer, resolved } = ctx.identity;
  if (ctx.stream && bearer.kind === 'key' && resolved) return relayStream(deps, ctx, upstream, bearer.key);
  // Read the whole body before the upstream's clock starts: a slow client is never its failure.
  if (hasBody(ctx.req.headers)) ctx.body ??= await readBody(ctx.req, ctx.res, deps.bodyTimeoutMs);
  await forward(deps, ctx, upstream, 'proxy', (status) => {
    if (status === 304) ctx.refundNotModified();
  });
}

/**
 * The default avatars: no key and none of the API's budgets, but a budget per address of their own
 * (DESIGN.md §21). A body sent here is read like any other: a slow client is never the service's failure.
 */
export async function serveAvatar(deps: GatewayDeps, ctx: RequestContext): Promise<void> {
  const { req, res } = ctx;
  await deps.avatars.consume(ctx.record.clientIp);
  delete req.headers.authorization;
  delete req.headers.cookie;
  ctx.body = await readBody(req, res, deps.bodyTimeoutMs);
  await forward(deps, ctx, 'users', 'proxy');
}

/** The routes the gateway answers itself: the API's version and its OpenAPI document. */
function answerItself(deps: GatewayDeps, { req, res, record, refundNotModified }: RequestContext) {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') throw new MethodNotAllowedError(['GET', 'HEAD']);
  if (record.path === OPENAPI_PATH) sendDocument(req, res, deps.openapi, refundNotModified);
  else sendTagged(req, res, INDEX, refundNotModified);
}

/**
 * A notification stream: its slot of the account's, then relayed for as long as it lasts. A `HEAD`
 * learns the stream's headers at once (DESIGN.md §21): the service would hold it open like a `GET`.
 */
async function relayStream(deps: GatewayDeps, ctx: RequestContext, upstream: UpstreamName, key: string) {
  const { req, res } = ctx;
  if (req.method === 'HEAD') {
    res.writeHead(200, EVENT_STREAM_HEADERS).end();
    return;
  }
  await deps.streams.admit(ctx.identity.resolved!, key, res);
  await forward(deps, ctx, upstream, 'stream');
}

/**
 * Sends the request to the service with the identity signed over the path really sent, and passes
 * its answer on; a service that cannot answer is `503` (or, mid-answer, a cut connection), one with
 * no slot free in time `503 overloaded`.
 */
async function forward(
  deps: GatewayDeps,
  { req, res, record, identity, body, refund, caller }: RequestContext,
  name: UpstreamName,
  how: 'proxy' | 'stream',
  onAnswer?: (status: number) => void,
) {
  if (!carriesClientCredentials(record.path)) delete req.headers.authorization;
  // Cookies belong to the account pages and the key API only.
  if (name !== 'users') delete req.headers.cookie;
  const method = req.method ?? 'GET';
  const { actor } = identity;
  const { clientIp } = record;
  const headersFor = (url: string) => signIdentity(deps.internalToken, { method, url, actor, clientIp });
  const upstream = deps.upstreams[name];
  try {
    await upstream[how](req, res, { body, headersFor, onAnswer, caller });
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // Nothing was sent: the refusal is uncharged (DESIGN.md §18), unlike a service that failed.
    if (err instanceof OverloadedError) {
      refund();
      throw err;
    }
    const open = (err as { code?: string }).code === 'EOPENBREAKER';
    throw new ServiceUnavailableError(
      open ? `the ${name} service is unavailable; try again shortly` : `the ${name} service did not answer`,
      upstream.retryAfterSeconds,
    );
  }
}
