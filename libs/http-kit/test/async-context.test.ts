import { execFileSync } from 'node:child_process';

/**
 * A service request, served in a fresh node (jest's own worker has an `AsyncLocalStorage` enabled
 * already): whether async context is tracked before and after it, and the access line it wrote. On
 * Node 20 an enabled `AsyncLocalStorage` hooks every promise of the process (posts-service paid
 * 13% of its instructions a request for the log context it gave, bench/RESULTS.md); its mark is a
 * `kResourceStore` symbol property on every promise made while it is on.
 */
const SERVE_ONE = `
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import kit from '@community/http-kit';
import logging from '@community/logging';
const { createRegistry, createServiceApp, listen, signIdentity } = kit;
const tracking = async () => {
  await sleep(1);
  return Object.getOwnPropertySymbols(new Promise(() => {})).some((s) => s.description === 'kResourceStore');
};
const lines = [];
const destination = new Writable({
  write(chunk, _encoding, done) {
    lines.push(JSON.parse(String(chunk)));
    done();
  },
});
const token = 'async-context-test-token-0123456789';
const app = createServiceApp({
  logger: logging.createLogger({ service: 'async-context-test', level: 'info', destination }),
  internalToken: token,
  routes: (router) => router.get('/thing', (_req, res) => res.json({ ok: true })),
  health: { version: '1', registry: createRegistry('async_context_test'), isShuttingDown: () => false, checks: [] },
});
const server = await listen(app, 0, '127.0.0.1');
const seen = { before: await tracking() };
const url = '/api/v1/thing';
const actor = { userId: 7, role: 'member', scopes: new Set(['read']) };
const res = await fetch(server.url + url, {
  headers: { ...signIdentity(token, { method: 'GET', url, actor }), 'x-request-id': 'ctx-check-1' },
});
seen.status = res.status;
seen.after = await tracking();
await server.close(10);
const access = lines.find((line) => line.msg === 'request');
seen.access = { request_id: access?.request_id, account_id: access?.account_id };
console.log(JSON.stringify(seen));
`;

describe('async context', () => {
  it('is never tracked for a request, and the access line still names the request and the account', () => {
    const out = execFileSync(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', SERVE_ONE],
      { cwd: __dirname, encoding: 'utf8', timeout: 30_000 },
    );
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({
      before: false,
      status: 200,
      after: false,
      access: { request_id: 'ctx-check-1', account_id: 7 },
    });
  });
});
