import type { Request, Response, Router } from 'express';
import { ForbiddenError, type EraseQuery } from '@community/contracts';
import type { TxDeps } from '@community/events';
import { formValue, publicBase, resource } from '@community/http-kit';
import type { Session } from '../domain/accounts/sessions';
import { streamExport } from '../domain/export/account-export';
import type { ExportSources } from '../domain/export/remote-parts';
import { eraseMe } from '../domain/users/erase-account';
import { clearSessionCookie, sessionActor } from '../routes/session';
import { csrfInput, formAlert, inputField } from './forms';
import { html } from './html';
import { renderPage } from './layout';
import { toProblem, type Problem } from './problems';
import { clientIp, signedIn, signedInForm } from './navigation';

/*
 * Leaving and taking one's data (DESIGN.md §20) on the account pages: the export as a file, and the
 * erasure of the account with its password, after saying plainly what it does.
 */

export const EXPORT_PAGE = '/account/settings/export';
export const DELETE_PAGE = '/account/settings/delete';
export const GOODBYE_PAGE = '/account/goodbye';

export interface LeavingDeps extends TxDeps {
  sources: ExportSources;
}

function showDeleteForm(res: Response, status: number, session: Session, problem?: Problem) {
  renderPage(res, status, {
    title: 'Delete my account',
    session,
    current: 'settings',
    main: html`<h1>Delete my account</h1>
      ${formAlert(problem)}
      <div class="alert" id="delete-warning">
        <p><strong>This cannot be undone.</strong> Deleting your account:</p>
        <ul>
          <li>signs you out everywhere and ends your API keys, OAuth apps and grants at once;</li>
          <li>
            replaces your username and display name with <code>deleted-${session.userId}</code>, and removes
            your email, bio and picture;
          </li>
          <li>removes your notifications, your likes, your open flags and your webhooks;</li>
          <li>
            keeps your posts and comments, shown under that deleted name, unless you tick the box below to
            delete them too.
          </li>
        </ul>
        <p>Want a copy first? <a href="${EXPORT_PAGE}" download>Download my data</a>.</p>
      </div>
      <form id="delete-account-form" method="post" action="${DELETE_PAGE}" novalidate>
        ${csrfInput(session.csrfToken)}
        ${inputField({
          problem,
          name: 'password',
          label: 'Your password',
          type: 'password',
          required: true,
          hint: 'To confirm it is you.',
          autocomplete: 'current-password',
        })}
        <div class="field">
          <div class="check">
            <input type="checkbox" id="delete-content" name="content" value="delete" />
            <label for="delete-content">Delete my posts and comments too</label>
          </div>
        </div>
        <button type="submit" class="danger">Delete my account</button>
      </form>`,
  });
}

/** The erasure's refusals the form can show: a wrong password (by the field), the throttle, … */
function deleteProblem(err: unknown, res: Response): Problem | null {
  if (err instanceof ForbiddenError) {
    return { status: 403, fields: { password: 'That is not your password' } };
  }
  return toProblem(err, res);
}

async function deleteAccount(deps: LeavingDeps, req: Request, res: Response, session: Session) {
  const password = formValue(req.body, 'password');
  if (!password) {
    return showDeleteForm(res, 400, session, { status: 400, fields: { password: 'Enter your password' } });
  }
  const query: EraseQuery = formValue(req.body, 'content') === 'delete' ? { content: 'delete' } : {};
  try {
    await eraseMe(deps, sessionActor(session), { password }, query, clientIp(res));
  } catch (err) {
    const problem = deleteProblem(err, res);
    if (!problem) throw err;
    return showDeleteForm(res, problem.status, session, problem);
  }
  // The erasure ended every session of the account, this one included.
  clearSessionCookie(req, res);
  res.redirect(303, GOODBYE_PAGE);
}

export function leavingPages(router: Router, deps: LeavingDeps): void {
  resource(router, '/settings/export', {
    get: signedIn(deps.sql, EXPORT_PAGE, async (req, res, session) => {
      res.setHeader('Content-Disposition', `attachment; filename="community-${session.username}.json"`);
      await streamExport(deps, sessionActor(session), res, publicBase(req));
    }),
  });
  resource(router, '/settings/delete', {
    get: signedIn(deps.sql, DELETE_PAGE, async (_req, res, session) => showDeleteForm(res, 200, session)),
    post: signedInForm(deps.sql, DELETE_PAGE, (req, res, session) => deleteAccount(deps, req, res, session)),
  });
  resource(router, '/goodbye', {
    get: (_req, res) =>
      renderPage(res, 200, {
        title: 'Account deleted',
        session: null,
        main: html`<h1>Your account is being erased</h1>
          <div class="alert ok" role="status">
            <p>
              You are signed out, and your keys no longer work. Within a minute every part of the platform
              will have forgotten your account.
            </p>
          </div>`,
      }),
  });
}
