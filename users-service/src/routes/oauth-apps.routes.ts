import type { Redirect } from '@community/contracts';
import type { TxDeps } from '@community/events';
import type { OperationHandlers } from '@community/http-kit';
import type { OAUTH_OPERATIONS } from '@community/openapi';
import type { KeyCreator } from '../domain/keys/manage-keys';
import { deleteApp, listApps, readApp, registerApp, rotateSecret } from '../domain/oauth/manage-apps';

/**
 * The handlers of the OAuth app operations in `OAUTH_OPERATIONS` (libs/openapi), authenticated like
 * the key API: a bearer credential with the `keys` scope, or the account session with its CSRF token.
 */
export function oauthAppsHandlers(deps: TxDeps) {
  return {
    listOAuthApps: async ({ actor }) => {
      const apps = await listApps(deps.sql, actor.userId);
      return { items: apps, totalItems: apps.length, page: 1, limit: Math.max(apps.length, 1) };
    },
    createOAuthApp: ({ actor, body }) => registerApp(deps, actor.userId, body),
    getOAuthApp: ({ actor, params }) => readApp(deps.sql, actor.userId, params.id),
    deleteOAuthApp: ({ actor, params }) => deleteApp(deps, actor.userId, params.id),
    rotateOAuthAppSecret: ({ actor, params }) => rotateSecret(deps, actor.userId, params.id),
    // The browser's part of the authorization endpoint lives with the account pages, which have the
    // session; the query goes along untouched.
    authorize: ({ req }) => {
      const query = req.originalUrl.indexOf('?');
      return {
        location: `/account/oauth/authorize${query >= 0 ? req.originalUrl.slice(query) : ''}`,
      } satisfies Redirect;
    },
  } satisfies Partial<OperationHandlers<typeof OAUTH_OPERATIONS, KeyCreator>>;
}
