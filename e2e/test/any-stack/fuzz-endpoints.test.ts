import { expectStatus } from '../../src/client/http';
import { ENDPOINTS, NOT_FUZZED } from '../../src/fuzz/endpoints';
import { tagged } from '../../src/tags';
import { openTarget, type Target } from '../../src/target';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

let target: Target;

beforeAll(async () => {
  target = await openTarget('fuzzdoc');
}, 120_000);
afterAll(() => target?.close(), 60_000);

/** Every operation of the document as `METHOD /full/path`, a path under its own server or `/api/v1`. */
function documented(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) => {
    const server = (item.servers as { url: string }[] | undefined)?.[0]?.url ?? '/api/v1';
    const full = `${server.replace(/\/$/, '')}${path}`.replace(/(.)\/$/, '$1');
    return Object.keys(item)
      .filter((method) => METHODS.has(method))
      .map((method) => `${method.toUpperCase()} ${full}`);
  });
}

tagged('fuzz')('the fuzz list', () => {
  it('fuzzes every operation of the document, or says why not', async () => {
    const res = await target.world.call('GET', '/api/v1/openapi.json');
    const operations = documented(expectStatus(res, 200).body);
    const fuzzed = ENDPOINTS.map((endpoint) => `${endpoint.method} ${endpoint.template}`);
    expect([...fuzzed, ...Object.keys(NOT_FUZZED)].sort()).toEqual([...operations].sort());
  });
});
