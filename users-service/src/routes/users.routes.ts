import {
  listUsersQuery,
  registerBody,
  setPlanBody,
  setRoleBody,
  suspensionBody,
  updateMeBody,
} from '@community/contracts';
import {
  inSlots,
  parseId,
  parseWith,
  publicBase,
  requireActor,
  sendCreated,
  sendData,
  sendPage,
  type OperationHandlers,
  type Slots,
} from '@community/http-kit';
import type { TxDeps } from '@community/events';
import { changePlan, changeRole } from '../domain/users/admin';
import { listUsers, readMe, readUser } from '../domain/users/read-users';
import { registerUser } from '../domain/users/register';
import { toMe } from '../domain/users/representations';
import { liftSuspension, suspendUser } from '../domain/users/suspension';
import { updateMe } from '../domain/users/update-me';

/** The handlers of the account and profile operations in `USER_OPERATIONS` (libs/openapi). */
export function usersHandlers(deps: TxDeps & { searches: Slots }): OperationHandlers {
  return {
    register: async (req, res) => {
      const user = await registerUser(deps, parseWith(registerBody, req.body), String(res.locals.clientIp));
      sendCreated(res, toMe(user, publicBase(req)), `/api/v1/users/${user.id}`);
    },
    listUsers: async (req, res) => {
      requireActor(res.locals);
      const query = parseWith(listUsersQuery, req.query);
      const list = () => listUsers(deps.sql, query, publicBase(req));
      const page = await (query.q === undefined
        ? list()
        : inSlots(deps.searches, res.locals, 'lookups', list));
      sendPage(req, res, page, query);
    },
    getMe: async (req, res) =>
      sendData(res, await readMe(deps.sql, requireActor(res.locals).userId, publicBase(req))),
    updateMe: async (req, res) =>
      sendData(
        res,
        await updateMe(deps, requireActor(res.locals), parseWith(updateMeBody, req.body), publicBase(req)),
      ),
    getUser: async (req, res) => {
      requireActor(res.locals);
      sendData(res, await readUser(deps.sql, parseId(req.params.id, 'user'), publicBase(req)));
    },
    setUserPlan: async (req, res) => {
      const id = parseId(req.params.id, 'user');
      const body = parseWith(setPlanBody, req.body);
      sendData(res, await changePlan(deps, requireActor(res.locals), id, body, publicBase(req)));
    },
    setUserRole: async (req, res) => {
      const id = parseId(req.params.id, 'user');
      const { role } = parseWith(setRoleBody, req.body);
      sendData(res, await changeRole(deps, requireActor(res.locals), id, role, publicBase(req)));
    },
    suspendUser: async (req, res) => {
      const id = parseId(req.params.id, 'user');
      const body = parseWith(suspensionBody, req.body);
      sendData(res, await suspendUser(deps, requireActor(res.locals), id, body));
    },
    liftSuspension: async (req, res) =>
      sendData(res, await liftSuspension(deps, requireActor(res.locals), parseId(req.params.id, 'user'))),
  };
}
