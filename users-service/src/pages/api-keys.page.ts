import { randomBytes } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { createKeyBody, ValidationError } from '@community/contracts';
import type { TxDeps } from '@community/events';
import { parseId, parseWith, resource } from '@community/http-kit';
import type { Session } from '../domain/accounts/sessions';
import { createKey, DEFAULT_KEY_SCOPES, listKeys, revokeKey } from '../domain/keys/manage-keys';
import { accountSuspension } from '../domain/users/suspension';
import { apiKeysMain, type KeyFormValues, type KeysView } from './api-keys.view';
import { sessionActor } from '../routes/session';
import { formValue, formValues } from '@community/http-kit';
import { API_PAGE, renderPage } from './layout';
import { toProblem } from './problems';
import { firstSubmission } from '../domain/accounts/form-once';
import { signedIn, signedInForm } from './navigation';

const DEFAULT_FORM: KeyFormValues = { name: '', scopes: DEFAULT_KEY_SCOPES, expires_at: '' };

async function showPage(
  deps: TxDeps,
  res: Response,
  status: number,
  view: Omit<KeysView, 'keys' | 'onceToken' | 'suspension'>,
) {
  const [keys, suspension] = await Promise.all([
    listKeys(deps.sql, view.session.userId),
    accountSuspension(deps.sql, view.session.userId),
  ]);
  const onceToken = randomBytes(16).toString('base64url');
  renderPage(res, status, {
    title: 'API keys',
    session: view.session,
    current: 'api',
    main: apiKeysMain({ ...view, keys, onceToken, suspension }),
  });
}

/** The form's fields as the key API's body; a date input gives a day, the API wants an instant. */
function keyBody(form: KeyFormValues) {
  const expires = form.expires_at.trim();
  if (expires && !/^\d{4}-\d{2}-\d{2}$/.test(expires)) {
    throw ValidationError.single('expires_at', 'invalid_value', 'expires_at must be a date (YYYY-MM-DD)');
  }
  return parseWith(createKeyBody, {
    name: form.name,
    scopes: form.scopes,
    expires_at: expires ? `${expires}T00:00:00Z` : undefined,
  });
}

async function generate(deps: TxDeps, req: Request, res: Response, session: Session) {
  const form: KeyFormValues = {
    name: formValue(req.body, 'name'),
    scopes: formValues(req.body, 'scopes'),
    expires_at: formValue(req.body, 'expires_at'),
  };
  const once = formValue(req.body, '_once');
  if (!(await firstSubmission(deps.sql, once))) {
    // A reload or a second click of the same form: the key it made is listed, and not shown again.
    const notice =
      'This form was already sent: the key it created is in the list below, and it is not shown again.';
    await showPage(deps, res, 409, { session, form: DEFAULT_FORM, notice });
    return;
  }
  try {
    const newKey = await createKey(deps, sessionActor(session), keyBody(form));
    // Rendered in this response and nowhere else: no redirect, no URL, no cache.
    await showPage(deps, res, 201, { session, form: DEFAULT_FORM, newKey });
  } catch (err) {
    const problem = toProblem(err, res);
    if (!problem) throw err;
    await showPage(deps, res, problem.status, { session, form, problem });
  }
}

export function apiKeysPages(router: Router, deps: TxDeps): void {
  resource(router, '/settings/api', {
    get: signedIn(deps.sql, API_PAGE, async (req, res, session) => {
      const notice = req.query.revoked === '1' ? 'The key was revoked; it no longer works.' : undefined;
      await showPage(deps, res, 200, { session, form: DEFAULT_FORM, notice });
    }),
  });

  resource(router, '/settings/api/keys', {
    // Someone who lands here by address (not by the form) wants the API page.
    get: (_req, res) => res.redirect(303, API_PAGE),
    post: signedInForm(deps.sql, API_PAGE, (req, res, session) => generate(deps, req, res, session)),
  });

  resource(router, '/settings/api/keys/:id/revoke', {
    post: signedInForm(deps.sql, API_PAGE, async (req, res, session) => {
      await revokeKey(deps, session.userId, parseId(req.params.id, 'key'));
      res.redirect(303, `${API_PAGE}?revoked=1`);
    }),
  });
}
