import { createOAuthAppBody, type Redirect } from '@community/contracts';
import type { TxDeps } from '@community/events';
import {
  parseId,
  parseWith,
  sendCreated,
  sendData,
  sendPage,
  type OperationHandlers,
} from '@community/http-kit';
import { deleteApp, listApps, readApp, registerApp, rotateSecret } from '../domain/oauth/manage-apps';
import { keyCredential } from './session';

const appId = (raw: unknown) => parseId(raw, 'OAuth app');

/**
 * The handlers of the OAuth app operations in `OAUTH_OPERATIONS` (libs/openapi), authenticated like
 * the key API: a bearer credential with the `keys` scope, or the account session with its CSRF token.
 */
export function oauthAppsHandlers(deps: TxDeps): OperationHandlers {
  return {
    listOAuthApps: async (req, res) => {
      const { userId } = await keyCredential(deps, req, res);
      const apps = await listApps(deps.sql, userId);
      sendPage(req, res, { items: apps, totalItems: apps.length, page: 1, limit: Math.max(apps.length, 1) });
    },
    createOAuthApp: async (req, res) => {
      const { userId } = await keyCredential(deps, req, res);
      const app = await registerApp(deps, userId, parseWith(createOAuthAppBody, req.body));
      res.setHeader('Cache-Control', 'no-store');
      sendCreated(res, app, `/api/v1/oauth/apps/${app.id}`);
    },
    getOAuthApp: async (req, res) => {
      const { userId } = await keyCredential(deps, req, res);
      sendData(res, await readApp(deps.sql, userId, appId(req.params.id)));
    },
    deleteOAuthApp: async (req, res) => {
      const { userId } = await keyCredential(deps, req, res);
      sendData(res, await deleteApp(deps, userId, appId(req.params.id)));
    },
    rotateOAuthAppSecret: async (req, res) => {
      const { userId } = await keyCredential(deps, req, res);
      const app = await rotateSecret(deps, userId, appId(req.params.id));
      res.setHeader('Cache-Control', 'no-store');
      sendData(res, app);
    },
    // The browser's part of the authorization endpoint lives with the account pages, which have the
    // session; the query goes along untouched.
    authorize: (req, res) => {
      const query = req.originalUrl.indexOf('?');
      const location = `/account/oauth/authorize${query >= 0 ? req.originalUrl.slice(query) : ''}`;
      res.setHeader('Cache-Control', 'no-store');
      res.location(location);
      sendData(res, { location } satisfies Redirect, 302);
    },
  };
}
