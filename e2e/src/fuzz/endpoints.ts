import fc from 'fast-check';
import { cleanText, ownId, pathId } from './arbitraries';

/** Real ids in the stack under test, so some fuzzed requests reach existing resources. */
export interface FuzzIds {
  users: number[];
  /** Users whose plan and role the admin may change. */
  victims: number[];
  posts: number[];
  /** Posts that may be deleted. */
  sparePosts: number[];
  comments: number[];
  categories: number[];
  webhooks: number[];
  deliveries: number[];
  /** Keys of the fuzzing member that may be revoked. */
  spareKeys: number[];
  /** Open flags on content that may be hidden or deleted. */
  flags: number[];
  /** Throwaway members the moderator may suspend: never an actor of the fuzz. */
  suspendable: number[];
  /** A throwaway member the admin may erase: never an actor of the fuzz, nor anyone else's. */
  erasable: number[];
  /** OAuth apps of the fuzzing member (some spare) and of someone else. */
  oauthApps: number[];
  /** A URL of the suite's receiver, a valid webhook target. */
  receiverUrl: string;
  /** Ids a destructive fuzzed write must never name: the admin, the fuzzer, its key, kept content. */
  keep: number[];
}

type Fields = (ids: FuzzIds) => Record<string, fc.Arbitrary<unknown>>;

export interface Endpoint {
  method: string;
  /** The path template, for reports: /api/v1/posts/{id}. */
  template: string;
  path: (ids: FuzzIds) => fc.Arbitrary<string>;
  query?: string[];
  /** Arbitraries of valid values per body field; the fuzz mixes in anything else. */
  body?: Fields;
  as: 'member' | 'moderator' | 'admin' | 'anonymous';
}

const EVENTS = ['post.created', 'post.updated', 'post.deleted', 'comment.created', 'user.registered'];
const MEMBER_SCOPES = ['read', 'write', 'webhooks', 'keys'];
const someOf = (values: string[]) => fc.subarray(values, { minLength: 1 });

// A date-time to come, or one the API refuses (past, no time, no date at all), or none.
const laterDateTime = fc.oneof(
  fc
    .date({ min: new Date('2030-01-01'), max: new Date('2999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom('2999-01-01T00:00:00+02:00', '2000-01-01T00:00:00Z', '2999-01-01', 'tomorrow', null),
);

// Valid targets stay on loopback (nothing listens on port 9): the fuzz never sends deliveries elsewhere.
const webhookUrl = (ids: FuzzIds) =>
  fc.oneof(
    fc.constant(ids.receiverUrl),
    fc.constantFrom('http://127.0.0.1:9/hook', 'https://127.0.0.1:9/h?q=1#f', 'http://[::1]:9/'),
    cleanText(30).map((path) => `http://127.0.0.1:9/${encodeURIComponent(path)}`),
  );

const postFields: Fields = (ids) => ({
  title: cleanText(60),
  content: cleanText(200),
  category_id: fc.constantFrom(...ids.categories),
  tags: fc.array(fc.stringMatching(/^[a-zA-Z0-9-]{1,32}$/), { maxLength: 10 }),
});
const categoryFields: Fields = () => ({
  name: cleanText(50),
  slug: fc.stringMatching(/^[a-z0-9]{1,20}(-[a-z0-9]{1,20}){0,2}$/),
  description: cleanText(500),
});
const webhookFields: Fields = (ids) => ({
  url: webhookUrl(ids),
  events: someOf(EVENTS),
  description: cleanText(500),
});
const flagFields: Fields = () => ({
  reason: fc.constantFrom('spam', 'abuse', 'off_topic', 'other'),
  note: cleanText(500),
});
// Redirect URIs the API accepts: https anywhere, plain http on loopback only.
const redirectUri = fc.oneof(
  fc.constantFrom(
    'https://app.example/callback',
    'http://127.0.0.1:9/cb',
    'http://[::1]:9/',
    'http://localhost:9/cb?x=1',
  ),
  cleanText(30).map((path) => `https://app.example/${encodeURIComponent(path)}`),
);

type IdKind = Exclude<keyof FuzzIds, 'receiverUrl' | 'keep'>;

interface EndpointOptions {
  kind?: IdKind;
  spare?: boolean;
  confine?: boolean;
  as?: Endpoint['as'];
  body?: Fields;
  query?: string[];
}

/**
 * An endpoint row: `template` with `{id}` filled from real ids of `kind` (or hostile ones). Writes
 * that destroy or demote (`spare`) never name an id in `keep`. Writes that would reach past the test's
 * own objects (`confine`: flag, decide a flag, suspend) name no real id but those of `kind`, so a
 * shared stack keeps its other accounts and content as they were.
 */
function endpoint(method: string, template: string, opts: EndpointOptions = {}): Endpoint {
  const { kind, spare = false, confine = false } = opts;
  const segment = (ids: FuzzIds, real: number[]) =>
    confine ? ownId(real) : pathId(real, spare ? ids.keep : []);
  const path = (ids: FuzzIds) =>
    kind ? segment(ids, ids[kind]).map((id) => template.replace('{id}', id)) : fc.constant(template);
  return { method, template, path, as: opts.as ?? 'member', body: opts.body, query: opts.query };
}

/** Every endpoint of the public API (docs/api.md's route tables), with its fields and parameters. */
export const ENDPOINTS: Endpoint[] = [
  endpoint('GET', '/api/v1'),
  endpoint('POST', '/api/v1/auth/register', {
    as: 'anonymous',
    body: () => ({
      username: fc.stringMatching(/^[A-Za-z0-9_]{3,32}$/),
      email: fc.oneof(fc.emailAddress(), fc.stringMatching(/^[a-z0-9]{1,20}@example\.test$/)),
      password: fc.string({ minLength: 10, maxLength: 40 }),
      display_name: cleanText(50),
    }),
  }),
  endpoint('GET', '/api/v1/users', { query: ['sort'] }),
  endpoint('GET', '/api/v1/users/me'),
  endpoint('PUT', '/api/v1/users/me', {
    body: () => ({
      display_name: cleanText(50),
      bio: cleanText(500),
      avatar: fc.oneof(fc.webUrl(), fc.constant(null)),
    }),
  }),
  endpoint('GET', '/api/v1/users/{id}', { kind: 'users' }),
  endpoint('GET', '/api/v1/users/me/export'),
  // Erasure names no real id but the throwaway member's: a fuzzed case can erase no one else.
  endpoint('DELETE', '/api/v1/users/{id}', {
    kind: 'erasable',
    confine: true,
    as: 'admin',
    query: ['content'],
  }),
  endpoint('GET', '/api/v1/notifications', { query: ['unread', 'cursor'] }),
  endpoint('GET', '/api/v1/notifications/unread-count'),
  endpoint('POST', '/api/v1/notifications/read', {
    body: () => ({
      ids: fc.array(fc.integer({ min: 1, max: 2_147_483_647 }), { minLength: 1, maxLength: 100 }),
      all: fc.constant(true),
    }),
  }),
  endpoint('PUT', '/api/v1/users/{id}/plan', {
    kind: 'victims',
    spare: true,
    as: 'admin',
    body: () => ({
      plan: fc.constantFrom('free', 'beta', 'pro', 'enterprise'),
      hourly_limit: fc.integer({ min: 1, max: 1_000_000_000 }),
      daily_limit: fc.integer({ min: 1, max: 1_000_000_000 }),
    }),
  }),
  endpoint('PUT', '/api/v1/users/{id}/role', {
    kind: 'victims',
    spare: true,
    as: 'admin',
    body: () => ({ role: fc.constantFrom('member', 'moderator', 'admin') }),
  }),
  endpoint('PUT', '/api/v1/users/{id}/suspension', {
    kind: 'suspendable',
    confine: true,
    as: 'moderator',
    body: () => ({ until: laterDateTime, reason: cleanText(500) }),
  }),
  endpoint('DELETE', '/api/v1/users/{id}/suspension', {
    kind: 'suspendable',
    confine: true,
    as: 'moderator',
  }),
  endpoint('GET', '/api/v1/keys'),
  endpoint('POST', '/api/v1/keys', {
    body: () => ({
      name: cleanText(100),
      scopes: someOf(MEMBER_SCOPES),
      expires_at: laterDateTime,
    }),
  }),
  endpoint('DELETE', '/api/v1/keys/{id}', { kind: 'spareKeys', spare: true }),
  endpoint('GET', '/api/v1/oauth/apps'),
  endpoint('POST', '/api/v1/oauth/apps', {
    body: () => ({
      name: cleanText(100),
      redirect_uris: fc.array(redirectUri, { minLength: 1, maxLength: 10 }),
      client_type: fc.constantFrom('confidential', 'public'),
    }),
  }),
  endpoint('GET', '/api/v1/oauth/apps/{id}', { kind: 'oauthApps' }),
  endpoint('DELETE', '/api/v1/oauth/apps/{id}', { kind: 'oauthApps', spare: true }),
  endpoint('POST', '/api/v1/oauth/apps/{id}/rotate-secret', { kind: 'oauthApps' }),
  endpoint('GET', '/api/v1/posts', { query: ['category', 'author', 'tag', 'sort'] }),
  endpoint('GET', '/api/v1/tags', { query: ['q', 'sort'] }),
  endpoint('POST', '/api/v1/posts', { body: postFields }),
  endpoint('GET', '/api/v1/posts/{id}', { kind: 'posts' }),
  endpoint('PUT', '/api/v1/posts/{id}', {
    kind: 'posts',
    body: (ids) => ({ ...postFields(ids), is_pinned: fc.boolean(), is_locked: fc.boolean() }),
  }),
  endpoint('DELETE', '/api/v1/posts/{id}', { kind: 'sparePosts', spare: true }),
  endpoint('POST', '/api/v1/posts/{id}/like', { kind: 'posts' }),
  endpoint('DELETE', '/api/v1/posts/{id}/like', { kind: 'posts' }),
  endpoint('GET', '/api/v1/posts/{id}/comments', { kind: 'posts', query: ['sort'] }),
  endpoint('POST', '/api/v1/posts/{id}/comments', {
    kind: 'posts',
    body: (ids) => ({ content: cleanText(200), parent_id: fc.constantFrom(...ids.comments, null) }),
  }),
  endpoint('GET', '/api/v1/comments', { query: ['q', 'author', 'post', 'cursor'] }),
  endpoint('GET', '/api/v1/comments/{id}', { kind: 'comments' }),
  endpoint('PUT', '/api/v1/comments/{id}', { kind: 'comments', body: () => ({ content: cleanText(200) }) }),
  endpoint('DELETE', '/api/v1/comments/{id}', { kind: 'comments', spare: true }),
  endpoint('POST', '/api/v1/comments/{id}/like', { kind: 'comments' }),
  endpoint('DELETE', '/api/v1/comments/{id}/like', { kind: 'comments' }),
  endpoint('POST', '/api/v1/posts/{id}/flags', { kind: 'posts', confine: true, body: flagFields }),
  endpoint('POST', '/api/v1/comments/{id}/flags', { kind: 'comments', confine: true, body: flagFields }),
  endpoint('GET', '/api/v1/flags', { as: 'moderator', query: ['status', 'target_type'] }),
  endpoint('GET', '/api/v1/flags/{id}', { kind: 'flags', as: 'moderator' }),
  // Only the file's own flags, on the victim's spare post and comment: a fuzzed hide or delete spares kept content.
  endpoint('PUT', '/api/v1/flags/{id}', {
    kind: 'flags',
    confine: true,
    as: 'moderator',
    body: () => ({
      status: fc.constantFrom('resolved', 'dismissed'),
      action: fc.constantFrom('none', 'hide', 'unhide', 'delete'),
      reason: cleanText(500),
    }),
  }),
  endpoint('GET', '/api/v1/moderation/actions', { as: 'moderator', query: ['cursor'] }),
  endpoint('GET', '/api/v1/categories'),
  endpoint('GET', '/api/v1/categories/{id}', { kind: 'categories' }),
  endpoint('POST', '/api/v1/categories', { as: 'admin', body: categoryFields }),
  endpoint('PUT', '/api/v1/categories/{id}', { kind: 'categories', as: 'admin', body: categoryFields }),
  endpoint('DELETE', '/api/v1/categories/{id}', { kind: 'categories', spare: true, as: 'admin' }),
  endpoint('GET', '/api/v1/webhooks'),
  endpoint('POST', '/api/v1/webhooks', { body: webhookFields }),
  endpoint('GET', '/api/v1/webhooks/{id}', { kind: 'webhooks' }),
  endpoint('PUT', '/api/v1/webhooks/{id}', {
    kind: 'webhooks',
    body: (ids) => ({ ...webhookFields(ids), enabled: fc.boolean() }),
  }),
  endpoint('DELETE', '/api/v1/webhooks/{id}', { kind: 'webhooks', spare: true }),
  endpoint('POST', '/api/v1/webhooks/{id}/rotate-secret', { kind: 'webhooks' }),
  endpoint('GET', '/api/v1/webhooks/{id}/deliveries', { kind: 'webhooks', query: ['status'] }),
  {
    method: 'POST',
    template: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    path: (ids) =>
      fc
        .tuple(pathId(ids.webhooks), pathId(ids.deliveries))
        .map(([id, did]) => `/api/v1/webhooks/${id}/deliveries/${did}/redeliver`),
    as: 'member',
  },
  endpoint('GET', '/api/v1/events', { query: ['after', 'types', 'cursor'] }),
];

const OAUTH = 'an OAuth protocol endpoint: RFC 6749 bodies and errors, not the API envelope';

/** The document's operations the fuzz leaves out, as `METHOD /path`, each with why. */
export const NOT_FUZZED: Record<string, string> = {
  'GET /api/v1/openapi.json': 'one fixed document: no parameter, field or id to fuzz',
  'GET /api/v1/notifications/stream': 'a stream stays open, and a fuzzed case must end',
  'GET /avatars/{id}.svg': 'an SVG picture outside the API and its envelope',
  'GET /api/v1/oauth/authorize': 'a redirect that passes its query on unread to the account pages',
  'POST /api/v1/oauth/token': OAUTH,
  'POST /api/v1/oauth/revoke': OAUTH,
  'GET /.well-known/oauth-authorization-server': OAUTH,
  'POST /api/v1/webhooks/{id}/test': 'calls out to the receiver, up to 5 s a case',
  'POST /api/v1/webhooks/{id}/replay': 'a daily allowance per endpoint the fuzz would use up at once',
  'DELETE /api/v1/users/me':
    'erases the caller, always an actor of the fuzz; its wrong passwords would also lock the actor out of the login form',
};
