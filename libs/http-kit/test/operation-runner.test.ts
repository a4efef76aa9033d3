import { z } from 'zod';
import { idField, text, type Actor } from '@community/contracts';
import { createLogger } from '@community/logging';
import {
  ANSWERED,
  createRegistry,
  createServiceApp,
  listen,
  runOperations,
  signIdentity,
  type OperationHandlers,
  type RunningServer,
} from '@community/http-kit';

const token = 'test-internal-token-0123456789';
const page = { page: idField.default(1), limit: z.coerce.number().int().min(1).max(100).default(20) };

const TABLE = [
  {
    id: 'listThings',
    method: 'get',
    path: '/things',
    scope: 'read',
    query: z.strictObject({ ...page, colour: z.string().optional() }),
    response: { status: 200, kind: 'page' },
  },
  {
    id: 'createThing',
    method: 'post',
    path: '/things',
    scope: 'write',
    body: z.strictObject({ name: text({ min: 1, max: 5 }) }),
    response: { status: 201, kind: 'single', location: '/things/{id}' },
  },
  {
    id: 'getThing',
    method: 'get',
    path: '/things/{id}',
    scope: null,
    response: { status: 200, kind: 'single' },
  },
  {
    id: 'getPart',
    method: 'get',
    path: '/things/{id}/parts/{part_id}',
    scope: 'read',
    response: { status: 200, kind: 'single' },
  },
] as const;

const handlers: OperationHandlers<typeof TABLE> = {
  listThings: ({ query }) => ({
    items: [{ colour: query.colour }],
    totalItems: 1,
    page: query.page,
    limit: query.limit,
  }),
  createThing: ({ actor, body }) => ({ id: 42, name: body.name, by: actor.userId }),
  getThing: ({ params, actor, req, res }) => {
    if (req.headers['x-write-it-yourself']) {
      res.status(200).type('text/plain').send(`thing ${params.id}`);
      return ANSWERED;
    }
    return { id: params.id, anonymous: actor === null };
  },
  getPart: ({ params }) => params,
};

// @ts-expect-error: an operation of the table without a handler fails the typecheck.
const _missing: OperationHandlers<typeof TABLE> = { listThings: handlers.listThings };

// A handler returns what its response's contract schema says, when the table names one.
const _NAMED = [
  {
    id: 'getNamed',
    method: 'get',
    path: '/named/{id}',
    scope: null,
    response: { status: 200, kind: 'single', schema: 'Named' },
  },
] as const;
const _NAMED_RESOURCES = { Named: z.object({ id: z.number(), name: z.string() }) };
const _named: OperationHandlers<typeof _NAMED, null, typeof _NAMED_RESOURCES> = {
  getNamed: ({ params }) => ({ id: params.id, name: 'a name' }),
};
const _unnamed: OperationHandlers<typeof _NAMED, null, typeof _NAMED_RESOURCES> = {
  // @ts-expect-error: a result without the schema's `name` fails the typecheck.
  getNamed: ({ params }) => ({ id: params.id }),
};

let server: RunningServer;

beforeAll(async () => {
  const app = createServiceApp({
    logger: createLogger({ service: 'runner-test', level: 'silent' }),
    internalToken: token,
    routes: (router) => runOperations(router, TABLE, handlers),
    health: {
      version: '1',
      registry: createRegistry('runner_test'),
      isShuttingDown: () => false,
      checks: [],
    },
  });
  server = await listen(app, 0, '127.0.0.1');
});
afterAll(() => server.close(100));

const member: Actor = { userId: 7, role: 'member', scopes: new Set(['read', 'write']) };

async function call(
  method: string,
  path: string,
  init: { body?: unknown; actor?: Actor | null; headers?: object } = {},
) {
  const url = `/api/v1${path}`;
  const actor = init.actor === undefined ? member : init.actor;
  const res = await fetch(server.url + url, {
    method,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    headers: {
      ...signIdentity(token, { method, url, actor }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
  });
  const body = await res.text();
  return { status: res.status, headers: res.headers, body: body.startsWith('{') ? JSON.parse(body) : body };
}

describe('an operation table run by runOperations', () => {
  it('answers a 201 with the created object and a Location at the path the table names', async () => {
    const res = await call('POST', '/things', { body: { name: ' abc ' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/v1/things/42');
    expect(res.body).toEqual({ success: true, data: { id: 42, name: 'abc', by: 7 } });
  });

  it('parses the body with the table’s schema before the handler runs', async () => {
    const res = await call('POST', '/things', { body: { name: 'far too long', extra: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.details.errors.map((e: { field: string }) => e.field)).toEqual(['name', 'extra']);
  });

  it('is 401 when the scope needs a caller and none came, before anything else is read', async () => {
    const res = await call('POST', '/things', { body: {}, actor: null });
    expect(res.status).toBe(401);
  });

  it('is 404 naming the resource for a path id that is no id, parameter by parameter', async () => {
    expect((await call('GET', '/things/0')).body).toEqual({ error: 'not_found', message: 'thing not found' });
    expect((await call('GET', '/things/2147483648')).status).toBe(404);
    expect((await call('GET', '/things/3/parts/x')).body).toEqual({
      error: 'not_found',
      message: 'part not found',
    });
    expect((await call('GET', '/things/3/parts/4')).body.data).toEqual({ id: 3, part_id: 4 });
  });

  it('gives a key-less operation no actor, and lets a handler write its own answer', async () => {
    expect((await call('GET', '/things/5', { actor: null })).body.data).toEqual({ id: 5, anonymous: true });
    const own = await call('GET', '/things/5', { headers: { 'x-write-it-yourself': '1' } });
    expect([own.status, own.body]).toEqual([200, 'thing 5']);
  });

  it('answers a page with pagination and a Link that keeps the parsed filters', async () => {
    const res = await call('GET', '/things?colour=red&limit=1&junk=1');
    expect(res.status).toBe(400);
    const ok = await call('GET', '/things?colour=red&limit=1');
    expect(ok.body).toEqual({
      success: true,
      data: [{ colour: 'red' }],
      pagination: { current_page: 1, total_pages: 1, total_items: 1, per_page: 1 },
    });
    expect(ok.headers.get('link')).toContain('colour=red&page=1&limit=1>; rel="first"');
  });
});
