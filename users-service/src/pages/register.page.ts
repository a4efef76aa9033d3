import type { Request, Response, Router } from 'express';
import { registerBody } from '@community/contracts';
import type { TxDeps } from '@community/events';
import { parseWith, resource } from '@community/http-kit';
import { login, logout } from '../domain/accounts/sessions';
import { registerUser } from '../domain/users/register';
import { anonymousCsrfToken, assertAnonymousCsrf, sessionToken, setSessionCookie } from '../routes/session';
import { csrfInput, formAlert, inputField } from './forms';
import { formValue } from '@community/http-kit';
import { html } from './html';
import { API_PAGE, LOGIN_PAGE, renderPage } from './layout';
import { toProblem, type Problem } from './problems';
import { clientIp } from './navigation';

/** What the form shows again after a refusal: everything but the password. */
interface RegisterValues {
  username: string;
  email: string;
  display_name: string;
}

const EMPTY: RegisterValues = { username: '', email: '', display_name: '' };

function showForm(req: Request, res: Response, status: number, values: RegisterValues, problem?: Problem) {
  const field = { problem, required: true };
  renderPage(res, status, {
    title: 'Create your account',
    session: null,
    current: 'register',
    main: html`<h1>Create your account</h1>
      ${formAlert(problem)}
      <form id="register-form" method="post" action="/account/register" novalidate>
        ${csrfInput(anonymousCsrfToken(req, res))}
        ${inputField({
          ...field,
          name: 'username',
          label: 'Username',
          value: values.username,
          hint: '3–32 characters: lower-case letters, digits and underscores.',
          autocomplete: 'username',
        })}
        ${inputField({
          ...field,
          name: 'email',
          label: 'Email',
          type: 'email',
          value: values.email,
          autocomplete: 'email',
        })}
        ${inputField({
          ...field,
          name: 'password',
          label: 'Password',
          type: 'password',
          hint: 'At least 10 characters.',
          autocomplete: 'new-password',
        })}
        ${inputField({
          problem,
          name: 'display_name',
          label: 'Display name (optional)',
          value: values.display_name,
          hint: 'Shown next to your posts; your username if left empty.',
          autocomplete: 'nickname',
        })}
        <button type="submit">Create account</button>
      </form>
      <p>Already registered? <a href="${LOGIN_PAGE}">Log in</a>.</p>`,
  });
}

export function registerPage(router: Router, deps: TxDeps & { registrationsPerHour?: number }): void {
  resource(router, '/register', {
    get: (req, res) => showForm(req, res, 200, EMPTY),
    post: async (req, res) => {
      assertAnonymousCsrf(req);
      const values: RegisterValues = {
        username: formValue(req.body, 'username'),
        email: formValue(req.body, 'email'),
        display_name: formValue(req.body, 'display_name'),
      };
      const password = formValue(req.body, 'password');
      let username: string;
      try {
        const body = parseWith(registerBody, {
          ...values,
          password,
          display_name: values.display_name.trim() || undefined,
        });
        ({ username } = await registerUser(deps, body, clientIp(res)));
      } catch (err) {
        const problem = toProblem(err, res);
        if (!problem) throw err;
        return showForm(req, res, problem.status, values, problem);
      }
      await signInNewUser(req, res, deps, { username, password });
    },
  });
}

/**
 * The account exists now: sign it in, replacing any session the browser had. Should the login be
 * refused all the same (an address locked out earlier), the login page is where to try again.
 */
async function signInNewUser(
  req: Request,
  res: Response,
  deps: TxDeps,
  credentials: { username: string; password: string },
) {
  try {
    const { token } = await login(deps.sql, credentials, clientIp(res));
    await logout(deps.sql, sessionToken(req));
    setSessionCookie(req, res, token);
    res.redirect(303, API_PAGE);
  } catch (err) {
    if (!toProblem(err, res)) throw err;
    res.redirect(303, LOGIN_PAGE);
  }
}
