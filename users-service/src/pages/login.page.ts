import type { Request, Response, Router } from 'express';
import type { TxDeps } from '@community/events';
import { resource } from '@community/http-kit';
import { login, logout } from '../domain/accounts/sessions';
import {
  anonymousCsrfToken,
  assertAnonymousCsrf,
  assertSessionCsrf,
  clearSessionCookie,
  currentSession,
  sessionToken,
  setSessionCookie,
} from '../routes/session';
import { csrfInput, formAlert, inputField } from './forms';
import { formValue } from '@community/http-kit';
import { html } from './html';
import { LOGIN_PAGE, renderPage } from './layout';
import { toProblem, type Problem } from './problems';
import { clientIp, safeNext } from './navigation';

function showForm(
  req: Request,
  res: Response,
  status: number,
  form: { username: string; next: string },
  problem?: Problem,
) {
  renderPage(res, status, {
    title: 'Log in',
    session: null,
    current: 'login',
    main: html`<h1>Log in</h1>
      ${formAlert(problem)}
      <form id="login-form" method="post" action="${LOGIN_PAGE}" novalidate>
        ${csrfInput(anonymousCsrfToken(req, res))}
        <input type="hidden" name="next" value="${form.next}" />
        ${inputField({
          problem,
          name: 'username',
          label: 'Username',
          value: form.username,
          required: true,
          autocomplete: 'username',
        })}
        ${inputField({
          problem,
          name: 'password',
          label: 'Password',
          type: 'password',
          required: true,
          autocomplete: 'current-password',
        })}
        <button type="submit">Log in</button>
      </form>
      <p>New here? <a href="/account/register">Create an account</a>.</p>`,
  });
}

function missingFields(username: string, password: string): Problem | null {
  const fields: Record<string, string> = {};
  if (!username.trim()) fields.username = 'Enter your username';
  if (!password) fields.password = 'Enter your password';
  return Object.keys(fields).length > 0 ? { status: 400, fields } : null;
}

export function loginPages(router: Router, deps: TxDeps): void {
  resource(router, '/login', {
    get: async (req, res) => {
      const next = safeNext(req.query.next);
      if (await currentSession(deps.sql, req)) return res.redirect(303, next);
      showForm(req, res, 200, { username: '', next });
    },
    post: async (req, res) => {
      assertAnonymousCsrf(req);
      const form = { username: formValue(req.body, 'username'), next: safeNext(formValue(req.body, 'next')) };
      const password = formValue(req.body, 'password');
      const missing = missingFields(form.username, password);
      if (missing) return showForm(req, res, missing.status, form, missing);
      try {
        const { token } = await login(deps.sql, { username: form.username, password }, clientIp(res));
        // A browser that was signed in as someone else leaves no session behind.
        await logout(deps.sql, sessionToken(req));
        setSessionCookie(req, res, token);
        res.redirect(303, form.next);
      } catch (err) {
        const problem = toProblem(err, res);
        if (!problem) throw err;
        showForm(req, res, problem.status, form, problem);
      }
    },
  });

  resource(router, '/logout', {
    post: async (req, res) => {
      const session = await currentSession(deps.sql, req);
      // Without a session there is nothing to protect; with one, only our own form may end it.
      if (session) {
        assertSessionCsrf(req, session);
        await logout(deps.sql, sessionToken(req));
      }
      clearSessionCookie(req, res);
      res.redirect(303, LOGIN_PAGE);
    },
  });
}
