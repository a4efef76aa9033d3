import { OPERATIONS, operationPath } from '@community/openapi';
import { canonicalPath } from '../../src/routes/route-set';
import { carriesClientCredentials, declaredAt, isPublic, requiredScope } from '../../src/scopes';

// The rules are derived from the operation tables (openapi-coverage.test.ts checks each declared
// operation); these are the requests no table declares, which must keep the scopes DESIGN.md §5 gives.
// (A path no route declares at all is 404 before any scope is asked: route-set.test.ts.)
describe('the scope of a request no operation declares', () => {
  it.each([
    ['DELETE', '/api/v1/keys', 'keys'],
    ['GET', '/api/v1/keys/7', 'keys'],
    ['PUT', '/api/v1/oauth/apps/7', 'keys'],
    ['GET', '/api/v1/oauth/apps/7/rotate-secret', 'keys'],
    ['PATCH', '/api/v1/webhooks', 'webhooks'],
    ['PATCH', '/api/v1/categories', 'admin'],
    ['POST', '/api/v1/categories/7', 'admin'],
    ['GET', '/api/v1/categories/7/posts', 'read'],
    ['GET', '/api/v1/users/7/plan', 'read'],
    ['POST', '/api/v1/users/7', 'admin'],
    ['PUT', '/api/v1/users/me/export', 'write'],
    ['HEAD', '/api/v1/posts/7', 'read'],
    ['OPTIONS', '/api/v1/comments/7/like', 'read'],
    ['PATCH', '/api/v1/posts/7', 'write'],
    ['GET', '/api/v1/unknown', 'read'],
    ['POST', '/api/v1/unknown/7', 'write'],
    ['GET', '/api/v1/oauth/unknown', 'read'],
    ['GET', '/api/v1/keysmith', 'read'],
    ['POST', '/api/v1/webhooksmith', 'write'],
  ])('%s %s needs %s', (method, path, scope) => {
    expect(requiredScope(method, path)).toBe(scope);
  });
});

describe('what needs no key', () => {
  it.each([
    ['GET', '/account/login', false],
    ['POST', '/account/keys/7/revoke', false],
    ['GET', '/api/v1/oauth/token', false],
    ['PUT', '/api/v1/oauth/revoke', false],
    ['POST', '/api/v1/oauth/authorize', false],
    ['DELETE', '/.well-known/oauth-authorization-server', false],
    ['GET', '/api/v1/keys/7', true],
    ['DELETE', '/api/v1/users/me', true],
  ])('%s %s (session cookie: %s)', (method, path, session) => {
    expect(isPublic(method, path, session)).toBe(true);
  });

  it.each([
    ['GET', '/api/v1/auth/register', false],
    ['POST', '/api/v1/openapi.json', false],
    ['GET', '/api/v1/posts', true],
    ['POST', '/api/v1/webhooks', true],
    ['GET', '/api/v1/keysmith', true],
    ['GET', '/api/v1/keys', false],
    ['GET', '/accounting', false],
    // The session erases an account at this path, but reading or editing the profile needs a key.
    ['GET', '/api/v1/users/me', true],
    ['PUT', '/api/v1/users/me', true],
  ])('%s %s (session cookie: %s) needs a key', (method, path, session) => {
    expect(isPublic(method, path, session)).toBe(false);
  });

  it('passes the client credentials of the protocol endpoints alone through', () => {
    expect(carriesClientCredentials('/api/v1/oauth/token')).toBe(true);
    expect(carriesClientCredentials('/api/v1/oauth/revoke')).toBe(true);
    expect(carriesClientCredentials('/api/v1/oauth/authorize')).toBe(false);
    expect(carriesClientCredentials('/api/v1/oauth/token/x')).toBe(false);
    expect(carriesClientCredentials('/api/v1/keys')).toBe(false);
  });
});

describe('finding the operations declared at a path', () => {
  // What declaredAt replaced: every operation's path as a pattern, tested one by one.
  const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const patterns = OPERATIONS.map((op) => ({
    op,
    pattern: new RegExp(`^${escape(canonicalPath(operationPath(op))).replace(/\{\w+\}/g, '[^/]+')}$`),
  }));
  const byPatterns = (path: string) =>
    patterns.filter(({ pattern }) => pattern.test(path)).map(({ op }) => op);

  // Every declared path with its parameters filled by ids, by other paths' literal words (`me`,
  // `popular`), by odd text, and cut, extended or slashed.
  const words = [...new Set(OPERATIONS.flatMap((op) => operationPath(op).split('/')))].filter(
    (segment) => !segment.includes('{'),
  );
  const fillers = ['1', '42', 'x.svg', '7.svg', '.svg', '%2F', 'a b', '{id}', ...words];
  const paths = new Set<string>(['', '/', 'api/v1/posts', '/api/v1']);
  for (const op of OPERATIONS) {
    const template = operationPath(op);
    for (const filler of fillers) {
      const path = template.replace(/\{\w+\}/g, filler);
      for (const variant of [
        path,
        `${path}/`,
        `${path}/extra`,
        path.replace('/api', '//api'),
        path.slice(0, -1),
      ])
        // The gateway asks only about the canonical spelling of a path (app.ts).
        paths.add(canonicalPath(variant));
    }
  }

  it('finds what testing every operation pattern found, in the same order', () => {
    expect(paths.size).toBeGreaterThan(1_000);
    for (const path of paths) expect([path, declaredAt(path)]).toEqual([path, byPatterns(path)]);
  });

  it('answers the same when asked again, after more paths than it remembers, and for long paths', () => {
    // Twice over, past the memo's 4,096 paths, so that it starts over in between.
    const many = Array.from({ length: 5_000 }, (_, i) => `/api/v1/posts/${i}/comments`);
    const long = `/api/v1/posts/${'9'.repeat(300)}`;
    for (let round = 0; round < 2; round++)
      for (const path of [...many, long, ...paths])
        expect([path, declaredAt(path)]).toEqual([path, byPatterns(path)]);
  });
});
