import type { Request, Response, Router } from 'express';
import { AppError } from '@community/contracts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Handler = (req: Request, res: Response) => unknown;

export class MethodNotAllowedError extends AppError {
  constructor(readonly allow: string[]) {
    super('method_not_allowed', `this path supports ${allow.join(', ')}`);
  }
}

/** Registers the handlers of one path; any other method is 405 with an `Allow` header. */
export function resource(router: Router, path: string, handlers: Partial<Record<Method, Handler>>): void {
  const route = router.route(path);
  const methods = Object.keys(handlers) as Method[];
  for (const method of methods) {
    const handler = handlers[method]!;
    // Express 5 passes a rejected promise (or a throw) to the error handler: no wrapper needed.
    route[method]((req, res) => handler(req, res));
  }
  const allow = methods.map((method) => method.toUpperCase());
  if (allow.includes('GET')) allow.push('HEAD');
  route.all(() => {
    throw new MethodNotAllowedError(allow);
  });
}

/** What express needs of one entry of an operation table (`OperationSpec` in libs/openapi). */
export interface RoutedOperation {
  id: string;
  method: Method;
  /** With `{name}` parameters, as the OpenAPI document writes it. */
  path: string;
}

/** The handlers of a table, by operation id. */
export type BoundHandlers = Record<string, Handler>;

/** `{id}` in an OpenAPI path is `:id` to express. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * An operation without a handler, or a handler without an operation, is a programming error: the
 * service fails at start-up instead of serving a route the document does not describe, or not one
 * it does.
 */
export function assertBound(operations: readonly RoutedOperation[], handlers: BoundHandlers): void {
  const unbound = operations.filter((op) => !handlers[op.id]).map((op) => op.id);
  const ids = new Set(operations.map((op) => op.id));
  const stray = Object.keys(handlers).filter((id) => !ids.has(id));
  if (unbound.length || stray.length) {
    throw new Error(
      `operation table and handlers differ: unbound ${unbound.join(', ')}; stray ${stray.join(', ')}`,
    );
  }
}

/** Registers the operations of a table, each with the handler bound to its id; a path's other methods are 405. */
export function operationRoutes(
  router: Router,
  operations: readonly RoutedOperation[],
  handlers: BoundHandlers,
): void {
  assertBound(operations, handlers);
  // Paths in the order the table first names them, so `/users/me` stays ahead of `/users/{id}`.
  const paths = new Map<string, Partial<Record<Method, Handler>>>();
  for (const op of operations) {
    const methods = paths.get(op.path) ?? {};
    methods[op.method] = handlers[op.id];
    paths.set(op.path, methods);
  }
  for (const [path, methods] of paths) resource(router, expressPath(path), methods);
}
