import type { Router } from 'express';
import { createOAuthAppBody, type Redirect } from '@community/contracts';
import type { TxDeps } from '@community/events';
import { parseId, parseWith, resource, sendCreated, sendData, sendPage } from '@community/http-kit';
import { deleteApp, listApps, readApp, registerApp, rotateSecret } from '../domain/oauth/manage-apps';
import { keyCredential } from './credentials';

const appId = (raw: unknown) => parseId(raw, 'OAuth app');

/**
 * OAuth apps over the API, authenticated like the key API: a bearer credential with the `keys` scope,
 * or the account session with its CSRF token.
 */
export function oauthAppsRoutes(router: Router, deps: TxDeps): void {
  resource(router, '/oauth/apps', {
    get: async (req, res) => {
      const { userId } = await keyCredential(deps.sql, req, res);
      const apps = await listApps(deps.sql, userId);
      sendPage(req, res, { items: apps, totalItems: apps.length, page: 1, limit: Math.max(apps.length, 1) });
    },
    post: async (req, res) => {
      const { userId } = await keyCredential(deps.sql, req, res);
      const app = await registerApp(deps, userId, parseWith(createOAuthAppBody, req.body));
      res.setHeader('Cache-Control', 'no-store');
      sendCreated(res, app, `/api/v1/oauth/apps/${app.id}`);
    },
  });

  resource(router, '/oauth/apps/:id', {
    get: async (req, res) => {
      const { userId } = await keyCredential(deps.sql, req, res);
      sendData(res, await readApp(deps.sql, userId, appId(req.params.id)));
    },
    delete: async (req, res) => {
      const { userId } = await keyCredential(deps.sql, req, res);
      sendData(res, await deleteApp(deps, userId, appId(req.params.id)));
    },
  });

  resource(router, '/oauth/apps/:id/rotate-secret', {
    post: async (req, res) => {
      const { userId } = await keyCredential(deps.sql, req, res);
      const app = await rotateSecret(deps, userId, appId(req.params.id));
      res.setHeader('Cache-Control', 'no-store');
      sendData(res, app);
    },
  });

  // The browser's part of the authorization endpoint lives with the account pages, which have the
  // session; the query goes along untouched.
  resource(router, '/oauth/authorize', {
    get: (req, res) => {
      const query = req.originalUrl.indexOf('?');
      const location = `/account/oauth/authorize${query >= 0 ? req.originalUrl.slice(query) : ''}`;
      res.setHeader('Cache-Control', 'no-store');
      res.location(location);
      sendData(res, { location } satisfies Redirect, 302);
    },
  });
}
