import type { OAuthApp, OAuthAppWithSecret } from '@community/contracts';
import type { Session } from '../domain/accounts/sessions';
import type { AuthorizedApp } from '../domain/oauth/authorized-apps';
import { confirmedButton, dataTable } from './components';
import { formAlert, nameField, onceInputs, textareaField } from './forms';
import { html, type Html } from './html';
import { APPS_PAGE } from './layout';
import type { Problem } from './problems';

export interface AppFormValues {
  name: string;
  redirect_uris: string;
  client_type: string;
}

export interface AppsView {
  session: Session;
  apps: OAuthApp[];
  /** Apps that can act for this user now, by the user's own consent. */
  authorized: AuthorizedApp[];
  form: AppFormValues;
  /** Right after registration or rotation: the credentials, shown this once. */
  issued?: OAuthAppWithSecret;
  problem?: Problem;
  notice?: string;
  /** One-time token of the register form, so a resubmission registers nothing. */
  onceToken: string;
}

const day = (timestamp: string) => html`<time datetime="${timestamp}">${timestamp.slice(0, 10)}</time>`;

function credentialsBox(app: OAuthAppWithSecret): Html {
  return html`<section class="new-key" role="alert" aria-labelledby="issued-heading">
    <h2 id="issued-heading">Credentials of “${app.name}”</h2>
    <p>Client ID: <code id="client-id">${app.client_id}</code></p>
    ${
      app.client_secret
        ? html`<p>
              <strong>Copy the client secret now — you won’t see it again.</strong> We store only a
              fingerprint of it. Keep it on your server; never put it in a browser or mobile app.
            </p>
            <code id="new-key">${app.client_secret}</code>
            <button type="button" id="copy-key" hidden>Copy secret</button>
            <p id="copy-status" class="muted" role="status"></p>`
        : html`<p>A public app has no secret: it proves itself with PKCE on every authorization.</p>`
    }
  </section>`;
}

function appRow(app: OAuthApp, csrfToken: string): Html {
  const base = `${APPS_PAGE}/${app.id}`;
  return html`<tr data-app-id="${app.id}">
    <td data-label="Name">${app.name}<br /><span class="muted">since ${day(app.created_at)}</span></td>
    <td data-label="Client ID"><code>${app.client_id}</code></td>
    <td data-label="Type">${app.client_type}</td>
    <td data-label="Redirect URIs" class="wrap">
      ${app.redirect_uris.map((uri) => html`<code>${uri}</code><br />`)}
    </td>
    <td class="actions">
      ${
        app.client_type === 'confidential' &&
        confirmedButton({
          action: `${base}/rotate-secret`,
          confirm: `Issue a new secret for “${app.name}”? The current one stops working at once.`,
          csrfToken,
          text: 'Rotate secret',
          label: `Rotate the secret of ${app.name}`,
        })
      }
      ${confirmedButton({
        action: `${base}/delete`,
        confirm: `Delete “${app.name}”? Every token it holds stops working at once.`,
        csrfToken,
        text: 'Delete',
        label: `Delete app ${app.name}`,
      })}
    </td>
  </tr>`;
}

function authorizedRow(grant: AuthorizedApp, csrfToken: string): Html {
  return html`<tr data-grant-id="${grant.grantId}">
    <td data-label="App">${grant.appName}</td>
    <td data-label="Scopes">${grant.scopes.join(' ')}</td>
    <td data-label="Since">${day(grant.grantedAt)}</td>
    <td class="actions">
      ${confirmedButton({
        action: `${APPS_PAGE}/authorizations/${grant.grantId}/revoke`,
        confirm: `Take back the access you gave “${grant.appName}”?`,
        csrfToken,
        text: 'Revoke access',
        label: `Revoke access of ${grant.appName}`,
      })}
    </td>
  </tr>`;
}

function typeChoice(value: string, current: string, label: string, hint: string): Html {
  return html`<div class="check">
    <input
      type="radio"
      id="type-${value}"
      name="client_type"
      value="${value}"
      ${current === value && html` checked`}
    />
    <label for="type-${value}"><strong>${label}</strong> — ${hint}</label>
  </div>`;
}

function registerForm(view: AppsView): Html {
  const { problem, form } = view;
  const typeError = problem?.fields.client_type;
  return html`<h2 id="register-heading">Register an app</h2>
    ${formAlert(problem)}
    <form id="register-app-form" method="post" action="${APPS_PAGE}" novalidate>
      ${onceInputs(view.session.csrfToken, view.onceToken)}
      ${nameField(problem, form.name, 'Shown to people when your app asks for access.')}
      ${textareaField({
        problem,
        name: 'redirect_uris',
        label: 'Redirect URIs',
        value: form.redirect_uris,
        rows: 3,
        hint: 'One per line, up to 10: https, or http on 127.0.0.1 / localhost for development.',
      })}
      <fieldset${typeError && html` aria-describedby="client_type-error"`}>
        <legend>Type</legend>
        ${typeChoice('confidential', form.client_type, 'Confidential', 'runs on a server that keeps a secret')}
        ${typeChoice('public', form.client_type, 'Public', 'a browser or mobile app; uses PKCE, no secret')}
        ${typeError && html`<p class="field-error" id="client_type-error">${typeError}</p>`}
      </fieldset>
      <button type="submit">Register app</button>
    </form>`;
}

export function appsMain(view: AppsView): Html {
  return html`<h1>OAuth apps</h1>
    <p>
      Apps you register here can ask people for access to their Community Platform account with OAuth 2.0.
      Each person sees your app’s name and the scopes it asks for, and decides. Access you gave to other
      people’s apps is listed first; you can take it back at any time.
    </p>
    ${view.notice && html`<div class="alert ok" role="status"><p>${view.notice}</p></div>`}
    ${view.issued && credentialsBox(view.issued)}
    <h2 id="authorized-heading">Apps you have authorized</h2>
    ${dataTable({
      labelledBy: 'authorized-heading',
      columns: ['App', 'Scopes', 'Since', 'Action'],
      rows: view.authorized.map((grant) => authorizedRow(grant, view.session.csrfToken)),
      empty: 'No app can act for you.',
    })}
    <h2 id="apps-heading">Your apps</h2>
    ${dataTable({
      labelledBy: 'apps-heading',
      columns: ['Name', 'Client ID', 'Type', 'Redirect URIs', 'Actions'],
      rows: view.apps.map((app) => appRow(app, view.session.csrfToken)),
      empty: 'You have not registered any apps.',
    })}
    ${registerForm(view)}`;
}
