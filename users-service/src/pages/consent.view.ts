import { SCOPE_DESCRIPTIONS, type ActiveSuspension } from '@community/contracts';
import type { Session } from '../domain/accounts/sessions';
import type { AuthorizationRequest } from '../domain/oauth/authorization-request';
import { suspendedNotice } from './components';
import { csrfInput } from './forms';
import { html, type Html } from './html';
import { APPS_PAGE } from './layout';

export const CONSENT_PAGE = '/account/oauth/authorize';

function hiddenParams(request: AuthorizationRequest): Html[] {
  return Object.entries(request.params).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
}

/** The question put to the user: this app, these rights, on your account — allow or deny. */
export function consentMain(session: Session, request: AuthorizationRequest): Html {
  const { client, scopes } = request;
  const destination = new URL(request.redirectUri).host;
  return html`<h1>Authorize ${client.name}</h1>
    <p>
      <strong id="app-name">${client.name}</strong> (registered by @${client.ownerUsername}) wants to use your
      account <strong>@${session.username}</strong> with these rights:
    </p>
    <ul id="requested-scopes">
      ${scopes.map((scope) => html`<li data-scope="${scope}"><strong>${scope}</strong> — ${SCOPE_DESCRIPTIONS[scope]}</li>`)}
    </ul>
    <p class="muted">
      It never gets more than your own account may do, and you can take this back at any time under
      <a href="${APPS_PAGE}">OAuth apps</a>. Either way, you will be sent back to
      <strong>${destination}</strong>.
    </p>
    <form id="consent-form" method="post" action="${CONSENT_PAGE}">
      ${csrfInput(session.csrfToken)} ${hiddenParams(request)}
      <button type="submit" name="decision" value="allow" id="allow">Allow</button>
      <button type="submit" name="decision" value="deny" id="deny" class="link">Deny</button>
    </form>`;
}

/** What a suspended account sees instead of the question: no app can be authorized now. */
export function suspendedMain(request: AuthorizationRequest, suspension: ActiveSuspension): Html {
  return html`<h1>Authorize ${request.client.name}</h1>
    ${suspendedNotice(suspension, 'no app can be authorized')}
    <p>${request.client.name} was given no access to your account.</p>`;
}
