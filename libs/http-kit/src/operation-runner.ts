import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import type { Actor } from '@community/contracts';
import type { RESOURCES } from '@community/openapi';
import { sendData, sendPage, type Page } from './envelope';
import { requireActor } from './identity';
import { operationRoutes, type Handler, type RoutedOperation } from './resource';
import { sendTimeOrdered, type TimeOrderedList } from './time-ordered';
import { parseId, parseWith } from './validate';

/** What the runner needs of an entry of an operation table (`OperationSpec` in libs/openapi). */
export interface RunnableOperation extends RoutedOperation {
  readonly scope: string | null;
  /** The key API: the caller may also be the account session (see {@link RunOptions}). */
  readonly session?: true;
  /** What a path id names in a 404 when its collection's singular does not say it. */
  readonly resource?: string;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  readonly response: {
    readonly status: number;
    readonly kind: string;
    /** The contract schema the answer's data follows, by its name in {@link Resources}. */
    readonly schema?: string | null;
    readonly noStore?: true;
    /** A 201's `Location`, under the router's base: `{id}` is the created `id`. */
    readonly location?: string;
  };
}

type ParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;

/** Path parameters are ids (DESIGN.md §3). */
export type ParamsOf<Op extends RunnableOperation> = { [Name in ParamNames<Op['path']>]: number };

/** A redirect passes its query on unread: the page it leads to checks it. */
export type QueryOf<Op extends RunnableOperation> = Op['response']['status'] extends 302
  ? undefined
  : Op extends { query: infer Query extends z.ZodType }
    ? z.output<Query>
    : undefined;

export type BodyOf<Op extends RunnableOperation> = Op extends { body: infer Body extends z.ZodType }
  ? z.output<Body>
  : undefined;

/** The caller a scope requires: none for a key-less operation, the session's for the key API. */
export type ActorOf<Op extends RunnableOperation, SessionCaller> = Op extends { scope: null }
  ? null
  : Op extends { session: true }
    ? SessionCaller
    : Actor;

export interface OperationInput<Op extends RunnableOperation, SessionCaller = Actor | null> {
  params: ParamsOf<Op>;
  query: QueryOf<Op>;
  body: BodyOf<Op>;
  actor: ActorOf<Op, SessionCaller>;
  req: Request;
  res: Response;
}

/** A handler that wrote the answer itself (a stream, a `304`, a picture) returns this. */
export const ANSWERED: unique symbol = Symbol('answered');
type Answered = typeof ANSWERED;

/**
 * A time-ordered list answered by page or cursor; `within` runs the whole answer inside something
 * that must hold while it reads (the search slots).
 */
export interface ListAnswer<T extends object> extends Omit<TimeOrderedList<T>, 'position'> {
  within?: (answer: () => Promise<void>) => Promise<void>;
  // A method, so that any list is a ListAnswer<object>: the runner only hands it its own items.
  position?(item: T): number;
}

/** Schemas by the names operations give them: the contract's (libs/openapi's `RESOURCES`), or a test's. */
export type Resources = { readonly [name: string]: z.ZodType };

/** The data of an operation's answer, as its contract schema says; unknown without the schemas. */
type DataOf<Op extends RunnableOperation, R extends Resources> = Op['response'] extends {
  schema: infer Name extends keyof R & string;
}
  ? z.output<R[Name]>
  : unknown;

/** What an operation's declared response is made from. */
export type ResultOf<
  Op extends RunnableOperation,
  R extends Resources = typeof RESOURCES,
> = Op['response']['kind'] extends 'page'
  ? Page<DataOf<Op, R>> | ListAnswer<object>
  : Op['response']['status'] extends 201
    ? DataOf<Op, R> & { id: number }
    : Op['response']['status'] extends 302
      ? { location: string }
      : Op['response']['kind'] extends 'single'
        ? DataOf<Op, R>
        : unknown;

export type OperationHandler<
  Op extends RunnableOperation,
  SessionCaller = Actor | null,
  R extends Resources = typeof RESOURCES,
> = (
  input: OperationInput<Op, SessionCaller>,
) => ResultOf<Op, R> | Answered | Promise<ResultOf<Op, R> | Answered>;

/** The escape hatch: an express handler that parses, authorises and answers by itself. */
export interface RawHandler {
  readonly raw: Handler;
}
export const raw = (handler: Handler): RawHandler => ({ raw: handler });

/** A handler for every operation of a table: a missing one fails the typecheck. */
export type OperationHandlers<
  Ops extends readonly RunnableOperation[],
  SessionCaller = Actor | null,
  R extends Resources = typeof RESOURCES,
> = {
  [Op in Ops[number] as Op['id']]: OperationHandler<Op, SessionCaller, R> | RawHandler;
};

export interface RunOptions<SessionCaller> {
  /** Who calls an operation that also takes the account session (`session: true`). */
  sessionCaller?: (req: Request, res: Response) => Promise<SessionCaller>;
}

/** Any table's handler: its input is whatever its own operation parses. */
type AnyHandler = ((input: OperationInput<never, never>) => unknown) | RawHandler;

/**
 * Registers the operations of a table (DESIGN.md §3): each request's path ids, query and body are
 * parsed with the table's schemas and its caller resolved before the handler runs, and the handler's
 * result is answered as the operation declares.
 */
export function runOperations<const Ops extends readonly RunnableOperation[], SessionCaller = Actor | null>(
  router: Router,
  operations: Ops,
  handlers: OperationHandlers<Ops, SessionCaller>,
  options: RunOptions<SessionCaller> = {},
): void {
  const byId = new Map<string, RunnableOperation>(operations.map((op) => [op.id, op]));
  const paths = new Set(operations.map((op) => op.path));
  const astray = operations.filter(({ response: { location } }) => location && !paths.has(location));
  if (astray.length) throw new Error(`a Location outside the table: ${astray.map((op) => op.id).join(', ')}`);
  const bound: Record<string, Handler> = {};
  for (const [id, handler] of Object.entries(handlers as Record<string, AnyHandler>)) {
    const op = byId.get(id);
    // A stray handler stays unwrapped: operationRoutes names it.
    bound[id] = op ? runOperation(op, handler, options as RunOptions<unknown>) : () => undefined;
  }
  operationRoutes(router, operations, bound);
}

/** One operation as an express handler (for an operation mounted on a path of its own). */
export function runOperation(
  op: RunnableOperation,
  handler: AnyHandler,
  options: RunOptions<unknown> = {},
): Handler {
  if ('raw' in handler) return handler.raw;
  const params = pathIds(op);
  const actorOf = callerOf(op, options);
  const query = op.response.status === 302 ? undefined : op.query;
  const { body } = op;
  const answer = answerOf(op);
  return async (req, res) => {
    // Who asks before what is asked: a caller without the right learns nothing about the ids.
    const caller = actorOf(req, res);
    const actor = caller instanceof Promise ? await caller : caller;
    const input = {
      params: Object.fromEntries(params.map(([name, what]) => [name, parseId(req.params[name], what)])),
      actor,
      query: query && parseWith(query, req.query),
      body: body && parseWith(body, req.body),
      req,
      res,
    };
    const result = await handler(input as OperationInput<never, never>);
    if (result !== ANSWERED) await answer(req, res, result, input.query);
  };
}

/** Each `{name}` of the path, with what its 404 names: the collection before it, in the singular. */
function pathIds(op: RunnableOperation): [string, string][] {
  return [...op.path.matchAll(/([^/{}]+)\/\{(\w+)\}/g)].map(([, collection, name]) => [
    name!,
    op.resource ?? collection!.replace(/ies$/, 'y').replace(/s$/, ''),
  ]);
}

type CallerOf = (req: Request, res: Response) => unknown;

function callerOf(op: RunnableOperation, { sessionCaller }: RunOptions<unknown>): CallerOf {
  if (op.scope === null) return () => null;
  if (op.session) {
    if (!sessionCaller) return (_req, res) => (res.locals.actor as Actor | null | undefined) ?? null;
    return sessionCaller;
  }
  return (_req, res) => requireActor(res.locals);
}

/** Writes the declared answer; `query` is the parsed query (a page's links keep its filters). */
type Answer = (req: Request, res: Response, result: unknown, query: unknown) => void | Promise<void>;

function answerOf(op: RunnableOperation): Answer {
  const send = sendOf(op);
  if (!op.response.noStore) return send;
  return (req, res, result, query) => {
    res.setHeader('Cache-Control', 'no-store');
    return send(req, res, result, query);
  };
}

function sendOf({ id, response: { status, kind, location } }: RunnableOperation): Answer {
  if (kind === 'page') return sendList;
  // The schema itself, without the envelope (the wire formats of the OAuth RFCs).
  if (kind === 'plain') return (_req, res, result) => void res.status(status).json(result);
  if (status === 302)
    return (_req, res, result) => {
      res.location((result as { location: string }).location);
      sendData(res, result, status);
    };
  if (status !== 201) return (_req, res, result) => sendData(res, result, status);
  if (!location) throw new Error(`${id} answers 201 without a location for what it creates`);
  return (req, res, result) => {
    res.location(`${req.baseUrl}${location.replace('{id}', String((result as { id: number }).id))}`);
    sendData(res, result, status);
  };
}

/** A page as it is (its links keep the request's filters), or a time-ordered list by page or cursor. */
function sendList(req: Request, res: Response, result: unknown, query: unknown): void | Promise<void> {
  if (!('byPage' in (result as object))) {
    sendPage(req, res, result as Page<unknown>, (query ?? {}) as Record<string, unknown>);
    return;
  }
  const list = result as ListAnswer<object>;
  const answer = () => sendTimeOrdered(req, res, list);
  return list.within ? list.within(answer) : answer();
}
