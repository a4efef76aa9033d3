import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@community/test-harness';
import { memberWithKey, startStack, type Stack } from '../support/stack';

// DESIGN.md §10 in a real browser: a page on another origin (another localhost port) calls the API
// with a bearer key and reads the headers it needs; it never gets to use the account's session.

let stack: Stack;
let browser: Browser;
let app: http.Server;
let appOrigin: string;

beforeAll(async () => {
  // Each kept as it comes, so afterAll stops what started even when the other failed.
  await Promise.all([
    startStack('corsbrowser').then((started) => (stack = started)),
    launchChromium().then((launched) => (browser = launched)),
  ]);
  // The browser app: an empty page of its own origin.
  app = http.createServer((_req, res) => res.end('<!doctype html><title>app</title>'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (app) await new Promise((resolve) => app.close(resolve));
  try {
    await browser?.close();
  } finally {
    await stack?.stop();
  }
});

async function openApp(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(appOrigin);
  return page;
}

interface Answer {
  status: number;
  etag: string | null;
  remaining: string | null;
  error?: string;
}

it('lets a page on another origin call GET /api/v1/posts with a key and read ETag and the budget', async () => {
  const { key } = await memberWithKey(stack, ['read']);
  const page = await openApp();
  const answer: Answer = await page.evaluate(
    async ({ url, key }) => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      return {
        status: res.status,
        etag: res.headers.get('ETag'),
        remaining: res.headers.get('X-RateLimit-Remaining'),
      };
    },
    { url: `${stack.gateway}/api/v1/posts`, key },
  );
  expect(answer.status).toBe(200);
  expect(answer.etag).toMatch(/^"[^"]+"$/);
  expect(Number(answer.remaining)).toBeGreaterThan(0);

  // …and poll it for free with the tag it read.
  const polled: Answer = await page.evaluate(
    async ({ url, key, etag }) => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, 'if-none-match': etag } });
      return {
        status: res.status,
        etag: res.headers.get('ETag'),
        remaining: res.headers.get('X-RateLimit-Remaining'),
      };
    },
    { url: `${stack.gateway}/api/v1/posts`, key, etag: answer.etag! },
  );
  expect(polled).toEqual({ status: 304, etag: answer.etag, remaining: answer.remaining });
});

it('refuses a cross-origin fetch with credentials to the key API, even with a live session', async () => {
  const page = await openApp();
  // A session on the gateway's origin, whose cookie the browser holds for 127.0.0.1 (any port).
  await page.goto(`${stack.gateway}/account/register`);
  const name = `cors_${process.pid}`;
  await page.fill('#username', name);
  await page.fill('#email', `${name}@example.test`);
  await page.fill('#password', 'a good long password');
  await page.click('#register-form button[type=submit]');
  await page.waitForURL((u) => u.pathname === '/account/settings/api');
  expect((await page.context().cookies(stack.gateway)).map((c) => c.name)).toContain('cp_session');

  await page.goto(appOrigin);
  const outcome: Answer = await page.evaluate(async (url) => {
    try {
      const res = await fetch(url, { credentials: 'include' });
      return { status: res.status, etag: null, remaining: null };
    } catch (err) {
      return { status: 0, etag: null, remaining: null, error: (err as Error).name };
    }
  }, `${stack.gateway}/api/v1/keys`);
  expect(outcome).toEqual({ status: 0, etag: null, remaining: null, error: 'TypeError' });
});
