import type { Response } from 'express';
import type { Session } from '../domain/accounts/sessions';
import { csrfInput } from './forms';
import { securityHeaders } from './headers';
import { html, type Html } from './html';
import { SCRIPT } from './script';
import { STYLES } from './styles';

export const API_PAGE = '/account/settings/api';
export const SETTINGS_PAGE = '/account/settings';
export const APPS_PAGE = '/account/settings/apps';
export const LOGIN_PAGE = '/account/login';

export interface PageView {
  title: string;
  main: Html;
  /** The signed-in user; null for the anonymous pages; undefined when unknown (error pages). */
  session?: Session | null;
  /** Which nav entry is the current page. */
  current?: 'settings' | 'api' | 'apps' | 'login' | 'register';
}

const currentIf = (yes: boolean) => yes && html` aria-current="page"`;

function nav(view: PageView): Html {
  const { session, current } = view;
  if (session === undefined) {
    return html`<nav aria-label="Account">
      <ul>
        <li><a href="/account">Your account</a></li>
      </ul>
    </nav>`;
  }
  if (session === null) {
    return html`<nav aria-label="Account">
      <ul>
        <li><a href="${LOGIN_PAGE}" ${currentIf(current === 'login')}>Log in</a></li>
        <li><a href="/account/register" ${currentIf(current === 'register')}>Register</a></li>
      </ul>
    </nav>`;
  }
  return html`<nav aria-label="Account">
    <ul>
      <li class="who">Signed in as <strong>${session.username}</strong></li>
      <li><a href="${SETTINGS_PAGE}" ${currentIf(current === 'settings')}>Settings</a></li>
      <li><a href="${API_PAGE}" ${currentIf(current === 'api')}>API keys</a></li>
      <li><a href="${APPS_PAGE}" ${currentIf(current === 'apps')}>OAuth apps</a></li>
      <li>
        <form class="inline" method="post" action="/account/logout">
          ${csrfInput(session.csrfToken)} <button type="submit" class="link">Log out</button>
        </form>
      </li>
    </ul>
  </nav>`;
}

function layout(view: PageView, nonce: string): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <link rel="icon" href="data:," />
        <title>${view.title} · Community Platform</title>
        ${STYLES}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site">
          <div class="wrap">
            <a class="brand" href="/account">Community Platform</a>
            ${nav(view)}
          </div>
        </header>
        <main id="main" class="wrap" tabindex="-1">${view.main}</main>
        <script nonce="${nonce}">
          ${SCRIPT};
        </script>
      </body>
    </html>`;
}

/** Sends one full HTML page with the security headers and a fresh script nonce. */
export function renderPage(res: Response, status: number, view: PageView): void {
  const nonce = securityHeaders(res);
  res.status(status).type('html').send(layout(view, nonce).value);
}
