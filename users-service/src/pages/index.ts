import type { Router } from 'express';
import { resource } from '@community/http-kit';
import type { Logger } from '@community/logging';
import { currentSession } from '../routes/session';
import type { ExportSources } from '../domain/export/remote-parts';
import type { OAuthDeps } from '../domain/oauth/oauth-server';
import { apiKeysPages } from './api-keys.page';
import { consentPage } from './consent.page';
import { notFoundPage, pageErrors } from './errors';
import { pageHeaders } from './headers';
import { API_PAGE, LOGIN_PAGE } from './layout';
import { leavingPages } from './leaving.page';
import { loginPages } from './login.page';
import { oauthAppsPages } from './oauth-apps.page';
import { registerPage } from './register.page';
import { settingsPage } from './settings.page';

export interface PagesDeps extends OAuthDeps {
  logger: Logger;
  /** Where "Download my data" reads the other services' parts (DESIGN.md §20). */
  sources: ExportSources;
  /** REGISTRATIONS_PER_HOUR_PER_IP. */
  registrationsPerHour?: number;
}

/**
 * The account pages (DESIGN.md §5), on the router served under /account: server-rendered HTML with
 * form posts, a session cookie and a CSRF token on every form.
 */
export function accountPages(router: Router, deps: PagesDeps): void {
  router.use(pageHeaders);
  resource(router, '/', {
    get: async (req, res) => res.redirect(303, (await currentSession(deps.sql, req)) ? API_PAGE : LOGIN_PAGE),
  });
  registerPage(router, deps);
  loginPages(router, deps);
  settingsPage(router, deps);
  leavingPages(router, deps);
  apiKeysPages(router, deps);
  oauthAppsPages(router, deps);
  consentPage(router, deps);
  router.use(notFoundPage);
  router.use(pageErrors(deps.logger));
}
