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
    route[method](async (req, res) => {
      await handler(req, res);
    });
  }
  const allow = methods.map((method) => method.toUpperCase());
  if (allow.includes('GET')) allow.push('HEAD');
  route.all(() => {
    throw new MethodNotAllowedError(allow);
  });
}
