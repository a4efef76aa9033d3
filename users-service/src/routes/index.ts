import type { Router } from 'express';
import {
  expressPath,
  resource,
  runOperation,
  runOperations,
  type ServiceAppOptions,
  type OperationHandlers,
} from '@community/http-kit';
import {
  NOTIFICATION_OPERATIONS,
  OAUTH_OPERATIONS,
  operationPath,
  USER_OPERATIONS,
} from '@community/openapi';
import type { AppDeps } from '../app-deps';
import type { KeyCreator } from '../domain/keys/manage-keys';
import { avatarHandlers } from './avatars.routes';
import { erasureHandlers } from './erasure.routes';
import { keysHandlers } from './keys.routes';
import { notificationsHandlers } from './notifications.routes';
import { oauthAppsHandlers } from './oauth-apps.routes';
import { oauthErrors } from './oauth-errors';
import { protocolHandlers } from './oauth-protocol.routes';
import { keyCredential } from './session';
import { usersHandlers } from './users.routes';

const OPERATIONS = [...USER_OPERATIONS, ...NOTIFICATION_OPERATIONS, ...OAUTH_OPERATIONS];
type UsersOperation = (typeof OPERATIONS)[number];

/**
 * The OAuth protocol endpoints, the metadata document and the default avatars: each on its own path
 * (outside the API router, or outside /api/v1 altogether), with its own body parser and, for the
 * protocol, RFC 6749 errors instead of the envelope.
 */
type ApartOperation = Extract<UsersOperation, { protocol: string } | { server: object }>;
const mountedApart = (op: UsersOperation): op is ApartOperation => 'protocol' in op || 'server' in op;
const API_OPERATIONS = OPERATIONS.filter((op) => !mountedApart(op)) as Exclude<
  UsersOperation,
  ApartOperation
>[];
const APART_OPERATIONS = OPERATIONS.filter(mountedApart);

/** Every public route of users-service under /api/v1: its table's operations, each run with its handler. */
export function usersServiceRoutes(router: Router, deps: AppDeps): void {
  const handlers: OperationHandlers<typeof API_OPERATIONS, KeyCreator> = {
    ...usersHandlers(deps),
    ...erasureHandlers(deps),
    ...keysHandlers(deps),
    ...oauthAppsHandlers(deps),
    ...notificationsHandlers(deps),
  };
  // The key API's caller: a key with the `keys` scope, or the account session with its CSRF token.
  const sessionCaller = (
    req: Parameters<typeof keyCredential>[1],
    res: Parameters<typeof keyCredential>[2],
  ) => keyCredential(deps, req, res);
  runOperations(router, API_OPERATIONS, handlers, { sessionCaller });
}

/** The operations mounted apart, each at its full path with the body parser it needs. */
export function protocolMounts(deps: AppDeps): NonNullable<ServiceAppOptions['mounts']> {
  const handlers: OperationHandlers<typeof APART_OPERATIONS> = {
    ...protocolHandlers(deps),
    ...avatarHandlers(),
  };
  return APART_OPERATIONS.map((op) => {
    // Mounted at the path's fixed part; a parameter (the avatar's `{id}.svg`) is the route inside.
    const [, mount = '', rest = ''] = /^(.*?)((?:\/[^/]*\{.*)?)$/.exec(operationPath(op)) ?? [];
    return {
      path: mount,
      body: 'form' in op ? ('form' as const) : ('none' as const),
      routes: (router: Router) => {
        resource(router, expressPath(rest || '/'), { [op.method]: runOperation(op, handlers[op.id]) });
        if ('protocol' in op) router.use(oauthErrors(deps.logger));
      },
    };
  });
}
