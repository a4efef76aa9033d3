import http from 'node:http';
import { z } from 'zod';
import { paginationQuery } from '@community/contracts';
import { parseConfig, publicBaseUrlVar } from '@community/config';
import { createLogger } from '@community/logging';
import {
  createRegistry,
  createServiceApp,
  listen,
  parseWith,
  resource,
  sendPage,
  signIdentity,
  type RunningServer,
} from '@community/http-kit';

const token = 'test-internal-token-0123456789';
const logger = createLogger({ service: 'links-test', level: 'silent' });
const listQuery = z.object({ ...paginationQuery, sort: z.enum(['new', 'old']).default('new') });

/** A service with one list of 30 things, and PUBLIC_BASE_URL as given. */
async function listService(publicBaseUrl?: string): Promise<RunningServer> {
  const app = createServiceApp({
    logger,
    internalToken: token,
    publicBaseUrl,
    health: { version: '1', registry: createRegistry('links-test'), isShuttingDown: () => false, checks: [] },
    routes: (router) =>
      resource(router, '/things', {
        get: (req, res) => {
          const query = parseWith(listQuery, req.query);
          sendPage(req, res, { items: [], totalItems: 30, page: query.page, limit: query.limit }, query);
        },
      }),
  });
  return listen(app, 0, '127.0.0.1');
}

/** GET with a Host header of our choosing (fetch will not send one). */
function get(server: RunningServer, url: string, host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${server.url}${url}`,
      { headers: { host, ...signIdentity(token, { method: 'GET', url, actor: null }) } },
      (res) => {
        res.resume();
        const link = String(res.headers.link ?? '');
        resolve(link.split(', ').map((part) => /^<([^>]+)>/.exec(part)![1]!));
      },
    );
    req.once('error', reject);
  });
}

let plain: RunningServer;
let behindProxy: RunningServer;
beforeAll(async () => {
  plain = await listService();
  behindProxy = await listService('https://api.example.test/');
});
afterAll(async () => {
  await plain.close(100);
  await behindProxy.close(100);
});

describe('the Link header of a list', () => {
  it('carries page, limit and the documented filters the request used, nothing else', async () => {
    const junk = 'x'.repeat(9_000);
    const links = await get(plain, `/api/v1/things?page=2&limit=10&sort=old&junk=${junk}`, 'localhost:1');
    expect(links).toEqual([
      'http://localhost:1/api/v1/things?sort=old&page=1&limit=10',
      'http://localhost:1/api/v1/things?sort=old&page=1&limit=10',
      'http://localhost:1/api/v1/things?sort=old&page=3&limit=10',
      'http://localhost:1/api/v1/things?sort=old&page=3&limit=10',
    ]);
  });

  it('is built on PUBLIC_BASE_URL when set, whatever Host the request names', async () => {
    const links = await get(behindProxy, '/api/v1/things?limit=10', 'evil.example:666');
    expect(links[0]).toBe('https://api.example.test/api/v1/things?page=1&limit=10');
  });

  it('never copies a Host that is not a host name', async () => {
    const links = await get(plain, '/api/v1/things?limit=10', `a${'b'.repeat(300)}.example`);
    expect(links[0]).toBe('http://localhost/api/v1/things?page=1&limit=10');
  });
});

describe('PUBLIC_BASE_URL', () => {
  const schema = z.object({ PUBLIC_BASE_URL: publicBaseUrlVar() });
  it('is optional, and must be an absolute http(s) URL when given', () => {
    expect(parseConfig(schema, {}).PUBLIC_BASE_URL).toBeUndefined();
    expect(parseConfig(schema, { PUBLIC_BASE_URL: '' }).PUBLIC_BASE_URL).toBeUndefined();
    expect(parseConfig(schema, { PUBLIC_BASE_URL: 'https://api.example.test' }).PUBLIC_BASE_URL).toBe(
      'https://api.example.test',
    );
    expect(() => parseConfig(schema, { PUBLIC_BASE_URL: '/relative' })).toThrow(
      'PUBLIC_BASE_URL: must be an absolute http(s) URL such as https://api.example.com',
    );
    expect(() => parseConfig(schema, { PUBLIC_BASE_URL: 'ftp://x.test' })).toThrow(/absolute http\(s\) URL/);
  });
});
