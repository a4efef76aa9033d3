import type { components, operations, webhooks } from './generated/openapi';
import type { OPERATIONS } from './generated/operations';

/** Every operationId of the API: one method of the client each. */
export type OperationId = keyof typeof OPERATIONS & keyof operations;

/** The schemas of the document, by name: `Schema<'PostDetail'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

type Table = typeof OPERATIONS;
type Defined<T> = Exclude<T, undefined>;
type IsNever<T> = [T] extends [never] ? true : false;
/** Whether `{}` satisfies T: every field optional. */
type AllOptional<T> = object extends T ? true : false;

export type PathParams<Id extends OperationId> = Defined<operations[Id]['parameters']['path']>;
export type QueryParams<Id extends OperationId> = Defined<operations[Id]['parameters']['query']>;
type RequestBodyOf<Id extends OperationId> = Defined<operations[Id]['requestBody']>;
export type RequestBody<Id extends OperationId> =
  IsNever<RequestBodyOf<Id>> extends true
    ? never
    : RequestBodyOf<Id> extends { content: infer C }
      ? C[keyof C]
      : never;

type SuccessOf<Id extends OperationId> = operations[Id]['responses'][keyof operations[Id]['responses']];
/**
 * What a call resolves to: the documented body as it is — `{success, data}`, with `pagination` for a
 * list — or the text of a non-JSON answer, or (for a stream) the type of each event's data.
 */
export type Result<Id extends OperationId> =
  SuccessOf<Id> extends { content: infer C } ? C[keyof C] : undefined;

type PathField<Id extends OperationId> =
  IsNever<PathParams<Id>> extends true ? { path?: never } : { path: PathParams<Id> };
type QueryField<Id extends OperationId> =
  IsNever<QueryParams<Id>> extends true
    ? { query?: never }
    : AllOptional<QueryParams<Id>> extends true
      ? { query?: QueryParams<Id> }
      : { query: QueryParams<Id> };
type BodyField<Id extends OperationId> =
  IsNever<RequestBody<Id>> extends true
    ? { body?: never }
    : undefined extends operations[Id]['requestBody']
      ? { body?: RequestBody<Id> }
      : { body: RequestBody<Id> };

/** Per call: headers of your own (they win), a key of your own choosing, and a signal to give up. */
export interface CallOptions {
  headers?: Record<string, string>;
  /** The Idempotency-Key of a POST (one is generated when not given); retries reuse it. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** What one operation's method takes: `{path?, query?, body?, headers?, idempotencyKey?, signal?}`. */
export type Params<Id extends OperationId> = PathField<Id> & QueryField<Id> & BodyField<Id> & CallOptions;

/** The operations whose answer is Server-Sent Events: their methods are async iterators. */
export type StreamOperationId = {
  [Id in OperationId]: Table[Id] extends { answer: 'stream' } ? Id : never;
}[OperationId];

export interface StreamOptions {
  signal?: AbortSignal;
  /** Resume after this event (the `id` of the last one you handled). */
  lastEventId?: string;
  headers?: Record<string, string>;
}

type Method<Id extends OperationId> =
  AllOptional<Params<Id>> extends true
    ? (params?: Params<Id>) => Promise<Result<Id>>
    : (params: Params<Id>) => Promise<Result<Id>>;

/** One method per operationId; a stream's yields each event's data. */
export type OperationMethods = {
  [Id in OperationId]: Id extends StreamOperationId
    ? (options?: StreamOptions) => AsyncGenerator<Result<Id>, void, undefined>
    : Method<Id>;
};

/** The lists: operations whose answer has `pagination`. */
export type PageOperationId = {
  [Id in OperationId]: Result<Id> extends { pagination: unknown; data: unknown[] } ? Id : never;
}[OperationId];

/** One item of a list operation's `data`. */
export type Item<Id extends PageOperationId> = Result<Id> extends { data: (infer T)[] } ? T : never;

/** The limit headers of the latest answer that had them (DESIGN.md §6, §10). */
export interface RateLimit {
  /** `X-RateLimit-Limit`: the tighter window's limit. */
  limit: number;
  /** `X-RateLimit-Remaining`. */
  remaining: number;
  /** `X-RateLimit-Reset`: when the tighter window resets, in Unix seconds. */
  reset: number;
  /** `RateLimit-Policy`, as sent: both windows, e.g. `"hour";q=100;w=3600, "day";q=1000;w=86400`. */
  policy: string | null;
}

/** A body webhook endpoints receive, by its `event` (verifyWebhook's answer). */
export type WebhookEvent = {
  [Event in keyof webhooks]: Defined<webhooks[Event]['post']>['requestBody'] extends infer B
    ? Defined<B> extends { content: { 'application/json': infer E } }
      ? E
      : never
    : never;
}[keyof webhooks];
