import type { Router } from 'express';
import {
  assertScope,
  listUsersQuery,
  registerBody,
  setPlanBody,
  setRoleBody,
  updateMeBody,
} from '@community/contracts';
import {
  parseId,
  parseWith,
  publicBase,
  requireActor,
  resource,
  sendCreated,
  sendData,
  sendPage,
} from '@community/http-kit';
import type { TxDeps } from '@community/events';
import type { Request } from 'express';
import { changePlan, changeRole } from '../domain/users/admin';
import { listUsers, readMe, readUser } from '../domain/users/read-users';
import { registerUser } from '../domain/users/register';
import { toMe } from '../domain/users/representations';
import { updateMe } from '../domain/users/update-me';

export interface UsersRoutesDeps extends TxDeps {
  /** PUBLIC_BASE_URL, when configured. */
  publicBaseUrl?: string;
}

export function usersRoutes(router: Router, deps: UsersRoutesDeps): void {
  const base = (req: Request) => publicBase(req, deps.publicBaseUrl);

  resource(router, '/auth/register', {
    post: async (req, res) => {
      const user = await registerUser(deps, parseWith(registerBody, req.body), String(res.locals.clientIp));
      sendCreated(res, toMe(user, base(req)), `/api/v1/users/${user.id}`);
    },
  });

  resource(router, '/users', {
    get: async (req, res) => {
      requireActor(res.locals);
      const query = parseWith(listUsersQuery, req.query);
      sendPage(req, res, await listUsers(deps.sql, query, base(req)), query);
    },
  });

  resource(router, '/users/me', {
    get: async (req, res) =>
      sendData(res, await readMe(deps.sql, requireActor(res.locals).userId, base(req))),
    put: async (req, res) => {
      const actor = requireActor(res.locals);
      assertScope(actor, 'write');
      sendData(res, await updateMe(deps, actor.userId, parseWith(updateMeBody, req.body), base(req)));
    },
  });

  resource(router, '/users/:id', {
    get: async (req, res) => {
      requireActor(res.locals);
      sendData(res, await readUser(deps.sql, parseId(req.params.id, 'user'), base(req)));
    },
  });

  resource(router, '/users/:id/plan', {
    put: async (req, res) => {
      const id = parseId(req.params.id, 'user');
      const body = parseWith(setPlanBody, req.body);
      sendData(res, await changePlan(deps, requireActor(res.locals), id, body, base(req)));
    },
  });

  resource(router, '/users/:id/role', {
    put: async (req, res) => {
      const id = parseId(req.params.id, 'user');
      const { role } = parseWith(setRoleBody, req.body);
      sendData(res, await changeRole(deps, requireActor(res.locals), id, role, base(req)));
    },
  });
}
