import { MAX_STREAMS_PER_ACCOUNT } from '@community/contracts';
import { openEventStream, type OpenedStream } from '@community/test-harness';
import { breakerState } from '../support/raw-http';
import { gw, memberWithKey, startStack, type Stack } from '../support/stack';

// DESIGN.md §21: the gateway knows every route; a path is matched after one canonicalisation
// (repeated slashes collapse, one trailing slash is dropped, case counts) and every rule of the route
// it matched applies to it; anything else is 404 at the gateway, never proxied.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('gw-route-set');
}, 60_000);
afterAll(() => stack.stop());

const opened: OpenedStream[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

async function openStream(key: string, path: string) {
  const s = await openEventStream(`${stack.gateway}${path}`, { authorization: `Bearer ${key}` });
  opened.push(s);
  return s;
}

describe('one spelling of every path', () => {
  it('serves a trailing slash and repeated slashes as the route they spell', async () => {
    const { key } = await memberWithKey(stack);
    for (const path of ['/api/v1/posts/', '/api//v1///posts', '/api/v1/users/me/']) {
      const res = await gw(stack, 'GET', path, { key, undocumented: true });
      expect([path, res.status]).toEqual([path, 200]);
    }
  });

  it('answers 404 itself for a path no route declares, without asking the service', async () => {
    const { key } = await memberWithKey(stack);
    await stack.stopPosts();
    try {
      for (const path of [
        '/api/v1/posts/1/nothing',
        '/api/v1/POSTS',
        '/api/v1/categories/1/2',
        '/account/nope',
      ]) {
        const res = await gw(stack, 'GET', path, { key, undocumented: true });
        expect([path, res.status, res.body?.error]).toEqual([path, 404, 'not_found']);
      }
    } finally {
      await stack.startPosts();
    }
  });

  it('holds every spelling of the stream to the stream cap', async () => {
    const { key } = await memberWithKey(stack, ['read']);
    const spellings = [
      '/api/v1/notifications/stream/',
      '/api/v1/notifications/stream//',
      '/api//v1/notifications/stream',
    ];
    for (let i = 0; i < MAX_STREAMS_PER_ACCOUNT; i++) {
      const s = await openStream(key, spellings[i % spellings.length]!);
      expect(s.status).toBe(200);
    }
    const over = await gw(stack, 'GET', '/api/v1/notifications/stream/', { key, undocumented: true });
    expect(over.status).toBe(429);
  });

  it('does not take /STREAM for the stream: case counts', async () => {
    const { key } = await memberWithKey(stack, ['read']);
    const res = await gw(stack, 'GET', '/api/v1/notifications/STREAM', { key, undocumented: true });
    expect(res.status).toBe(404);
  });
});

describe('HEAD on a stream', () => {
  it('answers 20 HEADs at once with the stream headers and no body, and the users breaker stays closed', async () => {
    const { key } = await memberWithKey(stack, ['read']);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${stack.gateway}/api/v1/notifications/stream`, {
          method: 'HEAD',
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(5_000),
        }),
      ),
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(await res.text()).toBe('');
    }
    expect(await breakerState(stack.gateway, 'users')).toBe(0);
  });

  it('checks the key before it answers', async () => {
    const res = await fetch(`${stack.gateway}/api/v1/notifications/stream`, {
      method: 'HEAD',
      headers: { authorization: 'Bearer cpk_0000000000000000000000000000000000000000' },
    });
    expect(res.status).toBe(401);
  });
});

describe('request headers', () => {
  it('refuses more than 100 headers with 431 in the envelope, not a misleading 401', async () => {
    const { key } = await memberWithKey(stack);
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    // Short ones: 1,500 of them stay under the 16 KiB Node allows for a head.
    for (let i = 0; i < 1_500; i++) headers[`h${i}`] = '1';
    const res = await gw(stack, 'GET', '/api/v1/users/me', { headers, undocumented: true });
    expect(res.status).toBe(431);
    expect(res.body).toMatchObject({ error: 'payload_too_large' });
  });

  it('serves 100 headers as usual', async () => {
    const { key } = await memberWithKey(stack);
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    // fetch adds a handful of its own (host, connection, accept, …).
    for (let i = 0; i < 90; i++) headers[`x-filler-${i}`] = 'x';
    const res = await gw(stack, 'GET', '/api/v1/users/me', { headers, undocumented: true });
    expect(res.status).toBe(200);
  });
});
