import type { Router } from 'express';
import {
  assertBound,
  expressPath,
  operationRoutes,
  resource,
  type OperationHandlers,
  type ServiceAppOptions,
} from '@community/http-kit';
import {
  NOTIFICATION_OPERATIONS,
  OAUTH_OPERATIONS,
  operationPath,
  USER_OPERATIONS,
  type OperationSpec,
} from '@community/openapi';
import type { AppDeps } from '../app';
import { avatarHandlers } from './avatars.routes';
import { keysHandlers } from './keys.routes';
import { notificationsHandlers } from './notifications.routes';
import { oauthAppsHandlers } from './oauth-apps.routes';
import { oauthErrors } from './oauth-errors';
import { protocolHandlers } from './oauth-protocol.routes';
import { usersHandlers } from './users.routes';

const OPERATIONS = [...USER_OPERATIONS, ...NOTIFICATION_OPERATIONS, ...OAUTH_OPERATIONS];

/**
 * The OAuth protocol endpoints, the metadata document and the default avatars: each on its own path
 * (outside the API router, or outside /api/v1 altogether), with its own body parser and, for the
 * protocol, RFC 6749 errors instead of the envelope.
 */
const mountedApart = (op: OperationSpec) => op.protocol !== undefined || op.server !== undefined;

/** Every public route of users-service under /api/v1: its table's operations, bound by id. */
export function usersServiceRoutes(router: Router, deps: AppDeps): void {
  const handlers: OperationHandlers = {
    ...usersHandlers(deps),
    ...keysHandlers(deps),
    ...oauthAppsHandlers(deps),
    ...notificationsHandlers(deps),
  };
  operationRoutes(
    router,
    OPERATIONS.filter((op) => !mountedApart(op)),
    handlers,
  );
}

/** The operations mounted apart, each at its full path with the body parser it needs. */
export function protocolMounts(deps: AppDeps): NonNullable<ServiceAppOptions['mounts']> {
  const handlers = { ...protocolHandlers(deps), ...avatarHandlers() };
  const apart = OPERATIONS.filter(mountedApart);
  assertBound(apart, handlers);
  return apart.map((op) => {
    // Mounted at the path's fixed part; a parameter (the avatar's `{id}.svg`) is the route inside.
    const [, mount = '', rest = ''] = /^(.*?)((?:\/[^/]*\{.*)?)$/.exec(operationPath(op)) ?? [];
    return {
      path: mount,
      body: op.form ? ('form' as const) : ('none' as const),
      routes: (router: Router) => {
        resource(router, expressPath(rest || '/'), { [op.method]: handlers[op.id] });
        if (op.protocol === 'oauth') router.use(oauthErrors(deps.logger));
      },
    };
  });
}
