import type { z } from 'zod';
import type { Scope } from '@community/contracts';
import type { RequestName, ResourceName } from './schemas';

export type Method = 'get' | 'post' | 'put' | 'delete';

export const TAGS = {
  Posts: 'Posts: list, read, write, like. Served by posts-service.',
  Comments: 'Comments on posts: one flat list per post; replies carry `parent_id`.',
  Categories: 'Categories group posts. Everyone reads them; admins (`admin` scope) change them.',
  Accounts: 'Registration: the one API call that needs no key.',
  Users: 'Public profiles, your own account, and admin changes of plan and role.',
  Keys: 'API keys. Needs the `keys` scope, or the account session cookie plus `x-csrf-token`.',
  Webhooks: 'Webhook endpoints (`webhooks` scope, owner only) and their delivery log.',
  Meta: 'The API itself: its version and this document.',
} as const;
export type Tag = keyof typeof TAGS;

/** Error statuses an operation may answer besides the ones every operation shares. */
export type ExtraError = 404 | 409;

export interface OperationSpec {
  id: string;
  method: Method;
  /** Path under the server URL `/api/v1`, with `{name}` parameters. */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** The scope the gateway demands (gateway/src/scopes.ts); null: no key needed. */
  scope: Scope | null;
  /** The key API also accepts the account session cookie with its CSRF token. */
  session?: true;
  query?: z.ZodObject;
  body?: RequestName;
  response: {
    status: 200 | 201;
    /** One object in `data`, or a page of them with `pagination` and a `Link` header. */
    kind: 'single' | 'page' | 'document';
    schema: ResourceName | null;
    description: string;
    noStore?: true;
  };
  /** 404 for unknown ids is added for every path with parameters. */
  errors?: ExtraError[];
}

/** The error statuses one operation can answer (DESIGN.md §3), in ascending order. */
export function errorStatuses(op: OperationSpec): number[] {
  // A key that is sent is always checked, so even the key-less operations can answer 401 and 403.
  const statuses = new Set<number>([401, 403, 429, 500, 503]);
  if (op.body) [400, 413, 415].forEach((status) => statuses.add(status));
  if (op.query) statuses.add(400);
  if (op.path.includes('{')) statuses.add(404);
  for (const status of op.errors ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}
