import { inSlots, publicBase, type OperationHandlers, type Slots } from '@community/http-kit';
import type { USER_OPERATIONS } from '@community/openapi';
import type { TxDeps } from '@community/events';
import { changePlan, changeRole } from '../domain/users/admin';
import { listUsers, readMe, readUser } from '../domain/users/read-users';
import { registerUser } from '../domain/users/register';
import { toMe } from '../domain/users/representations';
import { liftSuspension, suspendUser } from '../domain/users/suspension';
import { updateMe } from '../domain/users/update-me';

/** The handlers of the account and profile operations in `USER_OPERATIONS` (libs/openapi). */
export function usersHandlers(deps: TxDeps & { searches: Slots; registrationsPerHour?: number }) {
  return {
    register: async ({ body, req, res }) =>
      toMe(await registerUser(deps, body, String(res.locals.clientIp)), publicBase(req)),
    listUsers: ({ query, req, res }) => {
      const list = () => listUsers(deps.sql, query, publicBase(req));
      return query.q === undefined ? list() : inSlots(deps.searches, res.locals, 'lookups', list);
    },
    getMe: ({ actor, req }) => readMe(deps.sql, actor.userId, publicBase(req)),
    updateMe: ({ actor, body, req }) => updateMe(deps, actor, body, publicBase(req)),
    getUser: ({ params, req }) => readUser(deps.sql, params.id, publicBase(req)),
    setUserPlan: ({ actor, params, body, req }) => changePlan(deps, actor, params.id, body, publicBase(req)),
    setUserRole: ({ actor, params, body, req }) =>
      changeRole(deps, actor, params.id, body.role, publicBase(req)),
    suspendUser: ({ actor, params, body }) => suspendUser(deps, actor, params.id, body),
    liftSuspension: ({ actor, params }) => liftSuspension(deps, actor, params.id),
  } satisfies Partial<OperationHandlers<typeof USER_OPERATIONS>>;
}
