import { randomBytes } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { createOAuthAppBody } from '@community/contracts';
import type { TxDeps } from '@community/events';
import { parseId, parseWith, resource } from '@community/http-kit';
import type { Session } from '../domain/accounts/sessions';
import { listAuthorizedApps, withdrawGrant } from '../domain/oauth/authorized-apps';
import { deleteApp, listApps, registerApp, rotateSecret } from '../domain/oauth/manage-apps';
import { firstSubmission } from '../domain/accounts/form-once';
import { formValue } from '@community/http-kit';
import { APPS_PAGE, renderPage } from './layout';
import { appsMain, type AppFormValues, type AppsView } from './oauth-apps.view';
import { toProblem } from './problems';
import { signedIn, signedInForm } from './navigation';

const NOTICES = new Map([
  ['deleted', 'The app was deleted; its tokens no longer work.'],
  ['withdrawn', 'Access withdrawn: that app can no longer act for you.'],
]);

const EMPTY_FORM: AppFormValues = { name: '', redirect_uris: '', client_type: 'confidential' };

async function showPage(
  deps: TxDeps,
  res: Response,
  status: number,
  view: Omit<AppsView, 'apps' | 'authorized' | 'onceToken' | 'form'> & { form?: AppFormValues },
) {
  const apps = await listApps(deps.sql, view.session.userId);
  const authorized = await listAuthorizedApps(deps.sql, view.session.userId);
  const onceToken = randomBytes(16).toString('base64url');
  renderPage(res, status, {
    title: 'OAuth apps',
    session: view.session,
    current: 'apps',
    main: appsMain({ ...view, form: view.form ?? EMPTY_FORM, apps, authorized, onceToken }),
  });
}

/** The form as the app API's body: one redirect URI per line. */
function appBody(form: AppFormValues) {
  const uris = form.redirect_uris
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  return parseWith(createOAuthAppBody, {
    name: form.name,
    redirect_uris: uris,
    client_type: form.client_type,
  });
}

async function register(deps: TxDeps, req: Request, res: Response, session: Session) {
  const form: AppFormValues = {
    name: formValue(req.body, 'name'),
    redirect_uris: formValue(req.body, 'redirect_uris'),
    client_type: formValue(req.body, 'client_type') || 'confidential',
  };
  const once = formValue(req.body, '_once');
  if (!(await firstSubmission(deps.sql, once))) {
    const notice = 'This form was already sent: the app it registered is listed below.';
    return showPage(deps, res, 409, { session, notice });
  }
  try {
    const issued = await registerApp(deps, session.userId, appBody(form));
    // Rendered in this response and nowhere else: no redirect, no URL, no cache.
    await showPage(deps, res, 201, { session, issued });
  } catch (err) {
    const problem = toProblem(err, res);
    if (!problem) throw err;
    await showPage(deps, res, problem.status, { session, form, problem });
  }
}

/** The account page for OAuth apps: register, list, rotate a secret, delete. */
export function oauthAppsPages(router: Router, deps: TxDeps): void {
  resource(router, '/settings/apps', {
    get: signedIn(deps.sql, APPS_PAGE, (req, res, session) =>
      showPage(deps, res, 200, { session, notice: NOTICES.get(String(req.query.done)) }),
    ),
    post: signedInForm(deps.sql, APPS_PAGE, (req, res, session) => register(deps, req, res, session)),
  });

  resource(router, '/settings/apps/:id/rotate-secret', {
    post: signedInForm(deps.sql, APPS_PAGE, async (req, res, session) => {
      const issued = await rotateSecret(deps, session.userId, parseId(req.params.id, 'app'));
      const notice = 'A new secret was issued; the old one no longer works.';
      await showPage(deps, res, 200, { session, issued, notice });
    }),
  });

  resource(router, '/settings/apps/:id/delete', {
    post: signedInForm(deps.sql, APPS_PAGE, async (req, res, session) => {
      await deleteApp(deps, session.userId, parseId(req.params.id, 'app'));
      res.redirect(303, `${APPS_PAGE}?done=deleted`);
    }),
  });

  resource(router, '/settings/apps/authorizations/:id/revoke', {
    post: signedInForm(deps.sql, APPS_PAGE, async (req, res, session) => {
      await withdrawGrant(deps, session.userId, parseId(req.params.id, 'authorization'));
      res.redirect(303, `${APPS_PAGE}?done=withdrawn`);
    }),
  });
}
