import type { Request, Response, Router } from 'express';
import { OAuthError, Request as OAuthRequest, Response as OAuthResponse } from '@node-oauth/oauth2-server';
import { AppError } from '@community/contracts';
import { resource } from '@community/http-kit';
import type { Session } from '../domain/accounts/sessions';
import {
  checkAuthorizationRequest,
  errorRedirect,
  type AuthorizationParams,
  type AuthorizationRequest,
} from '../domain/oauth/authorization-request';
import type { OAuthUser } from '../domain/oauth/oauth-model';
import { oauthServer, type OAuthDeps } from '../domain/oauth/oauth-server';
import { accountSuspension } from '../domain/users/suspension';
import { assertSessionCsrf, currentSession } from '../routes/session';
import { CONSENT_PAGE, consentMain, suspendedMain } from './consent.view';
import { formValue } from '@community/http-kit';
import { allowFormRedirectTo } from './headers';
import { renderPage } from './layout';
import { loginUrl } from './navigation';

const consentUrl = (params: AuthorizationParams) =>
  `${CONSENT_PAGE}?${new URLSearchParams(params as Record<string, string>).toString()}`;

type Checked = { session: Session; request: AuthorizationRequest } | null;

/**
 * Checks the request and answers for it when it cannot go on: an untrusted app or redirect URI gets
 * an error page, any other fault goes back to the app, a visitor without a session logs in first, and
 * a suspended account is told it can authorize nothing (DESIGN.md §21).
 */
async function checkOrAnswer(deps: OAuthDeps, req: Request, res: Response, input: unknown): Promise<Checked> {
  const session = await currentSession(deps.sql, req);
  const check = await checkAuthorizationRequest(deps.sql, input as Record<string, unknown>, session?.role);
  if (check.kind === 'refused') throw new AppError('validation_error', check.message);
  if (check.kind === 'redirect') {
    res.redirect(303, check.location);
    return null;
  }
  if (!session) {
    res.redirect(303, loginUrl(consentUrl(check.request.params)));
    return null;
  }
  const suspension = await accountSuspension(deps.sql, session.userId);
  if (suspension) {
    renderPage(res, 403, {
      title: `Authorize ${check.request.client.name}`,
      session,
      main: suspendedMain(check.request, suspension),
    });
    return null;
  }
  return { session, request: check.request };
}

/** The user said yes: the library issues the code and builds the redirect back to the app. */
async function issueCode(deps: OAuthDeps, req: Request, res: Response, checked: NonNullable<Checked>) {
  const { session, request } = checked;
  const response = new OAuthResponse();
  const user: OAuthUser = { id: session.userId, role: session.role };
  try {
    await oauthServer(deps, 'authorize').authorize(
      new OAuthRequest({
        method: 'POST',
        headers: req.headers as Record<string, string>,
        query: {},
        body: request.params,
      }),
      response,
      { authenticateHandler: { handle: () => user } },
    );
  } catch (err) {
    // Faults the check above did not foresee: reported to the app when the library could, else shown.
    if (!(err instanceof OAuthError)) throw err;
    if (!response.get('location')) throw new AppError('validation_error', err.message);
  }
  res.redirect(303, response.get('location') as string);
}

/** The consent step of the authorization code flow, reached through /api/v1/oauth/authorize. */
export function consentPage(router: Router, deps: OAuthDeps): void {
  resource(router, '/oauth/authorize', {
    get: async (req, res) => {
      const checked = await checkOrAnswer(deps, req, res, req.query);
      if (!checked) return;
      allowFormRedirectTo(res, new URL(checked.request.redirectUri).origin);
      renderPage(res, 200, {
        title: `Authorize ${checked.request.client.name}`,
        session: checked.session,
        main: consentMain(checked.session, checked.request),
      });
    },
    post: async (req, res) => {
      const checked = await checkOrAnswer(deps, req, res, req.body);
      if (!checked) return;
      assertSessionCsrf(req, checked.session);
      if (formValue(req.body, 'decision') === 'allow') return issueCode(deps, req, res, checked);
      const { redirectUri, state } = checked.request;
      res.redirect(303, errorRedirect(redirectUri, 'access_denied', 'the user denied the request', state));
    },
  });
}
