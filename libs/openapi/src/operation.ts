import type { z } from 'zod';
import type { Scope } from '@community/contracts';
import type { ResourceName } from './schemas';

export type Method = 'get' | 'post' | 'put' | 'delete';

export const TAGS = {
  Posts: 'Posts: list, read, write, like. Served by posts-service.',
  Comments: 'Comments on posts: one flat list per post; replies carry `parent_id`.',
  Categories: 'Categories group posts. Everyone reads them; admins (`admin` scope) change them.',
  Accounts: 'Registration: the one API call that needs no key.',
  Users: 'Public profiles, your own account, and admin changes of plan and role.',
  Keys: 'API keys. Needs the `keys` scope, or the account session cookie plus `x-csrf-token`.',
  Webhooks: 'Webhook endpoints (`webhooks` scope, owner only) and their delivery log.',
  OAuth:
    'OAuth 2.0: register apps (`keys` scope, or the account session plus `x-csrf-token`), and the endpoints apps use to get tokens — authorization code with PKCE, refresh, client credentials (RFC 6749, 7636), revocation (RFC 7009) and metadata (RFC 8414).',
  Notifications:
    'Replies, mentions, likes and badges for you (DESIGN.md §13): listed, counted, marked read, and live as Server-Sent Events.',
  Moderation:
    'Flags, the review queue, suspension and the audit log (DESIGN.md §12). Members flag (`write`); moderators and admins decide (`moderate`).',
  Meta: 'The API itself: its version and this document.',
} as const;
export type Tag = keyof typeof TAGS;

/** Error statuses an operation may answer besides the ones every operation shares. */
export type ExtraError = 404 | 409;

type Json = Record<string, unknown>;

/** The service behind the gateway that answers an operation (gateway/src/proxy/upstream.ts). */
export type Upstream = 'posts' | 'users' | 'webhooks';

export interface OperationSpec {
  id: string;
  method: Method;
  /** Path under the server URL `/api/v1` (or `server`), with `{name}` parameters. */
  path: string;
  /** A path outside `/api/v1`, e.g. a `/.well-known` document: the server its path is under. */
  server?: { url: string; description: string };
  /** Who answers it: a service, or null when the gateway answers it itself. */
  upstream: Upstream | null;
  tag: Tag;
  summary: string;
  description?: string;
  /** The scope the gateway demands (gateway/src/scopes.ts); null: no key needed. */
  scope: Scope | null;
  /** The key API also accepts the account session cookie with its CSRF token. */
  session?: true;
  /**
   * Served before keys and the API's limits, like /docs (the default avatars): no 401/403 and no
   * X-RateLimit headers; a budget per address of its own (429).
   */
  unlimited?: true;
  query?: z.ZodObject;
  /** The contract schema of the body; the document names it as REQUESTS does (schemas.ts). */
  body?: z.ZodType;
  /** What a `{name}` of the path names in a 404, when its collection's singular does not say it. */
  resource?: string;
  /** The body is an HTML form (`application/x-www-form-urlencoded`) instead of JSON. */
  form?: true;
  /**
   * An OAuth 2.0 protocol endpoint (token, revocation): the app authenticates itself (HTTP Basic or
   * form fields) instead of a bearer, and errors are RFC 6749 §5.2 bodies instead of the envelope.
   */
  protocol?: 'oauth';
  response: {
    status: 200 | 201 | 202 | 302;
    /**
     * One object in `data`, or a page of them with `pagination` and a `Link` header; `plain`: the
     * schema itself, without the envelope (the wire formats of the OAuth RFCs);
     * `stream`: Server-Sent Events whose `data` is the schema.
     */
    kind: 'single' | 'page' | 'document' | 'plain' | 'svg' | 'stream';
    schema: ResourceName | null;
    description: string;
    noStore?: true;
    /** Written as it is read (the export, DESIGN.md §20): the bytes are not known first, so no `ETag`. */
    streamed?: true;
    /** Further headers of this answer, by name. */
    headers?: Record<string, Json>;
    /** A 201's `Location`: the path of the created resource, its `{id}` the created `id`. */
    location?: string;
  };
  /** 404 for unknown ids is added for every path with parameters. */
  errors?: readonly ExtraError[];
}

/** One service's table as written: every entry is answered by the same upstream. */
export type OperationDeclaration = Omit<OperationSpec, 'upstream'>;

/** The operations of a table, each stamped with the upstream that answers it. */
export function servedBy<U extends Upstream | null, const T extends readonly OperationDeclaration[]>(
  upstream: U,
  operations: T,
): { readonly [K in keyof T]: T[K] & { readonly upstream: U } } {
  return operations.map((op) => ({ ...op, upstream })) as never;
}

/** The error statuses one operation can answer (DESIGN.md §3), in ascending order. */
export function errorStatuses(op: OperationSpec): number[] {
  // The gateway reads no bearer there; the app's own authentication fails with 401, and a body that
  // is not a form is an RFC 6749 `invalid_request` (400), not 415. The gateway reads every body
  // first: a slow one is its 408, one over 64 KiB its 413.
  if (op.protocol === 'oauth') return [400, 401, 408, 413, 429, 500, 503];
  if (op.unlimited) return [404, 429, 500, 503];
  // A key that is sent is always checked, so even the key-less operations can answer 401 and 403.
  const statuses = new Set<number>([401, 403, 429, 500, 503]);
  if (op.body) [400, 408, 413, 415].forEach((status) => statuses.add(status));
  // A redirect passes its query on unread: the page it leads to checks it.
  if (op.query && op.response.status !== 302) statuses.add(400);
  if (op.path.includes('{')) statuses.add(404);
  if (idempotent(op)) [409, 422].forEach((status) => statuses.add(status));
  for (const status of op.errors ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

/** A POST under `/api/v1` takes an `Idempotency-Key` (DESIGN.md §10); the OAuth protocol's do not. */
export const idempotent = (op: OperationSpec) =>
  op.method === 'post' && !op.protocol && !op.server && !op.unlimited;

/** The API's base path: every operation's path is under it unless it names its own `server`. */
export const API_BASE = '/api/v1';

/** The full path of an operation at the gateway: under its own server (e.g. the root) or `/api/v1`. */
export function operationPath(op: Pick<OperationSpec, 'path' | 'server'>): string {
  return `${op.server ? op.server.url.replace(/\/$/, '') : API_BASE}${op.path}`;
}
