import { idField, paginationQuery } from '@community/contracts';
import { idempotent, type OperationSpec } from './operation';
import { ref } from './responses';
import { toInlineSchema } from './schemas';

type Json = Record<string, unknown>;

/** The parameters of an operation in the document: its path ids, its query, and the headers it reads. */
export function parameters(op: OperationSpec): Json[] {
  const path = [...op.path.matchAll(/([a-z]+)\/\{(\w+)\}/g)].map(([, collection, name]) => ({
    name,
    in: 'path',
    required: true,
    description: `The ${SINGULAR[collection!] ?? collection} id.`,
    schema: toInlineSchema(idField),
  }));
  const query = Object.entries(op.query?.shape ?? {}).map(([name, field]) => {
    if (field === paginationQuery.page) return ref('parameters', 'Page');
    if (field === paginationQuery.limit) return ref('parameters', 'Limit');
    const { description: own, ...schema } = toInlineSchema(field);
    const description = QUERY_DESCRIPTIONS[name] ?? own;
    const required = !field.safeParse(undefined).success;
    return {
      name,
      in: 'query',
      ...(description ? { description } : {}),
      ...(required ? { required } : {}),
      schema,
    };
  });
  const csrf = op.session ? [ref('parameters', 'CsrfToken')] : [];
  const resume = op.response.kind === 'stream' ? [LAST_EVENT_ID] : [];
  const conditional = conditionalGet(op) ? [ref('parameters', 'IfNoneMatch')] : [];
  const idempotency = idempotent(op) ? [ref('parameters', 'IdempotencyKey')] : [];
  return [...path, ...query, ...csrf, ...resume, ...conditional, ...idempotency];
}

const LAST_EVENT_ID: Json = {
  name: 'Last-Event-ID',
  in: 'header',
  description: 'The `id:` of the last event received: what came after it is sent first (up to 100).',
  schema: { type: 'string', pattern: '^[0-9]{1,10}$' },
};

/** Only on a replay, so not required: written inline. */

const QUERY_DESCRIPTIONS: Record<string, string> = {
  category: 'Only posts in this category (id).',
  author: 'Only posts by this user (id).',
  tag: 'Only posts with this tag (case-insensitive).',
  sort: 'Order of the list.',
  status: 'Only deliveries in this state.',
  cursor:
    'Instead of `page`: continue a walk where `pagination.next_cursor` of the previous answer left off. Every item that existed when the walk began comes exactly once, and any cursor page costs what the first page costs. Not with `page`; on posts only with `sort=latest`.',
};

const SINGULAR: Record<string, string> = {
  posts: 'post',
  comments: 'comment',
  categories: 'category',
  users: 'user',
  avatars: 'user',
  keys: 'API key',
  webhooks: 'webhook endpoint',
  deliveries: 'delivery',
  apps: 'OAuth app',
};

/** A list whose query takes a `cursor` is time-ordered (DESIGN.md §10): it answers either pagination. */
export const timeOrdered = (op: OperationSpec) => op.query?.shape.cursor !== undefined;

/** A GET answered 200 carries an ETag and may be answered 304 (DESIGN.md §10), unless it is streamed. */
export const conditionalGet = (op: OperationSpec) =>
  op.method === 'get' && op.response.status === 200 && op.response.kind !== 'stream' && !op.response.streamed;
