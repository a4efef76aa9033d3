import type express from 'express';
import { Router } from 'express';
import { operationRoutes, type RoutedOperation } from '@community/http-kit';

const TABLE: RoutedOperation[] = [
  { id: 'getMe', method: 'get', path: '/users/me' },
  { id: 'getUser', method: 'get', path: '/users/{id}' },
  { id: 'setRole', method: 'put', path: '/users/{id}/role' },
];

const handlers = {
  getMe: (_req: express.Request, res: express.Response) => res.json({ who: 'me' }),
  getUser: (req: express.Request, res: express.Response) => res.json({ who: req.params.id }),
  setRole: (req: express.Request, res: express.Response) => res.json({ role: req.params.id }),
};

describe('routes registered from an operation table', () => {
  it('registers each operation at its express path, in table order so `/users/me` precedes `/users/{id}`', async () => {
    const router = Router();
    operationRoutes(router, TABLE, handlers);
    const routes = (router.stack as { route?: { path: string } }[]).map(({ route }) => route?.path);
    expect(routes).toEqual(['/users/me', '/users/:id', '/users/:id/role']);
  });

  it('refuses an operation without a handler, naming it', () => {
    const { setRole: _, ...partial } = handlers;
    expect(() => operationRoutes(Router(), TABLE, partial)).toThrow(/unbound setRole/);
  });

  it('refuses a handler for an operation the table does not declare', () => {
    expect(() => operationRoutes(Router(), TABLE, { ...handlers, deleteUser: () => {} })).toThrow(
      /stray deleteUser/,
    );
  });
});
