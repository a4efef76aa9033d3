import { buildOpenApiDocument } from '@community/openapi';
import { waitFor } from '@community/test-harness';
import { gw, startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  // A small anonymous budget, so the test can reach it.
  stack = await startStack('gwopenapi', { ANON_HOURLY_LIMIT: '4' });
  // Until Redis answers, the gateway counts in memory; start counting where the count stays.
  await waitFor(
    async () =>
      ((await (await fetch(`${stack.gateway}/readyz`)).json()) as any).checks?.redis?.status === 'ok',
    { what: 'the gateway to reach Redis' },
  );
});
afterAll(() => stack.stop());

describe('GET /api/v1/openapi.json', () => {
  it('still checks a key that is sent', async () => {
    const res = await gw(stack, 'GET', '/api/v1/openapi.json', { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('serves the generated document without a key, counted against the anonymous budget', async () => {
    const first = await gw(stack, 'GET', '/api/v1/openapi.json');
    expect(first.status).toBe(200);
    expect(first.body).toEqual(buildOpenApiDocument());
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('x-ratelimit-limit')).toBe('4');

    const remaining = [Number(first.headers.get('x-ratelimit-remaining'))];
    let last = first;
    while (last.status === 200 && remaining.length < 6) {
      last = await gw(stack, 'GET', '/api/v1/openapi.json');
      remaining.push(Number(last.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual([2, 1, 0, 0]);
    expect(last.status).toBe(429);
    expect(last.body).toMatchObject({ error: 'rate_limit_exceeded', retry_after: expect.any(Number) });
  });
});

describe('GET /docs', () => {
  it('serves the reference page with a CSP that allows this origin only', async () => {
    const res = await fetch(`${stack.gateway}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url);
    expect(references.length).toBeGreaterThanOrEqual(4);
    for (const url of references) expect(url).toMatch(/^\/(docs\/assets|api\/v1)\//);
  });

  it('serves the Swagger UI assets from the gateway itself, also past the anonymous budget', async () => {
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js', 'favicon-32x32.png']) {
      const res = await fetch(`${stack.gateway}/docs/assets/${file}`);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    const init = await (await fetch(`${stack.gateway}/docs/assets/init.js`)).text();
    expect(init).toContain("url: '/api/v1/openapi.json'");
    expect(init).toContain('validatorUrl: null');
  });

  it('answers anything else under /docs with the 404 envelope', async () => {
    for (const path of ['/docs/assets/package.json', '/docs/assets/..%2Fpackage.json', '/docs/elsewhere']) {
      const res = await fetch(stack.gateway + path);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
  });
});
