import { ROLE_SCOPES } from '@community/access';
import {
  SCOPE_DESCRIPTIONS,
  type ActiveSuspension,
  type ApiKey,
  type CreatedKey,
} from '@community/contracts';
import type { Session } from '../domain/accounts/sessions';
import { confirmedButton, dataTable, suspendedNotice, when } from './components';
import { formAlert, inputField, nameField, onceInputs } from './forms';
import { html, type Html } from './html';
import { API_PAGE } from './layout';
import type { Problem } from './problems';

export interface KeyFormValues {
  name: string;
  scopes: string[];
  expires_at: string;
}

export interface KeysView {
  session: Session;
  keys: ApiKey[];
  form: KeyFormValues;
  /** Shown once, right after it was made; never stored or sent again. */
  newKey?: CreatedKey;
  problem?: Problem;
  notice?: string;
  /** One-time token of the generate form, so a resubmission mints nothing. */
  onceToken: string;
  /** The account's active suspension: said at the top, and no form to generate a key. */
  suspension: ActiveSuspension | null;
}

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

function newKeyBox(key: CreatedKey): Html {
  return html`<section class="new-key" role="alert" aria-labelledby="new-key-heading">
    <h2 id="new-key-heading">Your new key “${key.name}”</h2>
    <p>
      <strong>Copy it now — you won’t see it again.</strong> We store only a fingerprint of it, so nobody can
      show it to you later. If you lose it, revoke it and generate another.
    </p>
    <code id="new-key">${key.key}</code>
    <button type="button" id="copy-key" hidden>Copy key</button>
    <p id="copy-status" class="muted" role="status"></p>
    <p class="hint">Send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
  </section>`;
}

function keyRow(key: ApiKey, csrfToken: string): Html {
  const expired = key.expires_at !== null && Date.parse(key.expires_at) <= Date.now();
  return html`<tr data-key-id="${key.id}">
    <td data-label="Name">${key.name}</td>
    <td data-label="Prefix"><code>${key.prefix}…</code></td>
    <td data-label="Scopes">${key.scopes.join(' ')}</td>
    <td data-label="Created">${when(key.created_at, '')}</td>
    <td data-label="Last used">${when(key.last_used_at, 'Never')}</td>
    <td data-label="Expires">
      ${when(key.expires_at, 'Never')}${expired && html` <strong>(expired)</strong>`}
    </td>
    <td class="actions">
      ${confirmedButton({
        action: `${API_PAGE}/keys/${key.id}/revoke`,
        confirm: `Revoke the key “${key.name}”? Programs using it stop working at once.`,
        csrfToken,
        text: 'Revoke',
        label: `Revoke key ${key.name}`,
      })}
    </td>
  </tr>`;
}

function scopeBoxes(view: KeysView): Html {
  const error = view.problem?.fields.scopes;
  return html`<fieldset${error && html` aria-describedby="scopes-error"`}>
    <legend>Scopes</legend>
    ${ROLE_SCOPES[view.session.role].map(
      (scope) =>
        html`<div class="check">
          <input
            type="checkbox"
            id="scope-${scope}"
            name="scopes"
            value="${scope}"
            ${view.form.scopes.includes(scope) && html` checked`}
          />
          <label for="scope-${scope}"><strong>${scope}</strong> — ${SCOPE_DESCRIPTIONS[scope]}</label>
        </div>`,
    )}
    ${error && html`<p class="field-error" id="scopes-error">${error}</p>`}
  </fieldset>`;
}

function generateForm(view: KeysView): Html {
  const { problem, form } = view;
  return html`<h2 id="generate-heading">Generate new key</h2>
    ${formAlert(problem)}
    <form id="generate-key-form" method="post" action="${API_PAGE}/keys" novalidate>
      ${onceInputs(view.session.csrfToken, view.onceToken)}
      ${nameField(problem, form.name, 'What will use it, e.g. “backup script”.')} ${scopeBoxes(view)}
      ${inputField({
        problem,
        name: 'expires_at',
        label: 'Expires on (optional)',
        type: 'date',
        value: form.expires_at,
        hint: 'The key stops working at 00:00 UTC that day. Empty: never.',
        attributes: html` min="${tomorrow()}"`,
      })}
      <button type="submit">Generate key</button>
    </form>`;
}

export function apiKeysMain(view: KeysView): Html {
  return html`<h1>API keys</h1>
    <p>
      Keys let your programs call the Community Platform API as you. Give each program its own key with only
      the scopes it needs.
    </p>
    ${view.suspension && suspendedNotice(view.suspension, 'no new key can be generated')}
    ${view.notice && html`<div class="alert ok" role="status"><p>${view.notice}</p></div>`}
    ${view.newKey && newKeyBox(view.newKey)}
    <h2 id="keys-heading">Your keys</h2>
    ${dataTable({
      labelledBy: 'keys-heading',
      columns: ['Name', 'Prefix', 'Scopes', 'Created', 'Last used', 'Expires', 'Action'],
      rows: view.keys.map((key) => keyRow(key, view.session.csrfToken)),
      empty: 'You have no API keys yet.',
    })}
    ${view.suspension ? html`` : generateForm(view)}`;
}
