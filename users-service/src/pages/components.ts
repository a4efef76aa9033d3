import type { ActiveSuspension } from '@community/contracts';
import { csrfInput } from './forms';
import { html, type Html } from './html';

export interface TableSpec {
  /** Id of the heading that names the table, for screen readers. */
  labelledBy: string;
  /** Column headers; the last one (the buttons) is shown muted. */
  columns: string[];
  rows: Html[];
  /** Said instead of the table when it has no rows. */
  empty: string;
}

/** A table that scrolls sideways on a phone rather than overflowing the page. */
export function dataTable({ labelledBy, columns, rows, empty }: TableSpec): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  const headers = columns.map((column, i) =>
    i === columns.length - 1
      ? html`<th scope="col"><span class="muted">${column}</span></th>`
      : html`<th scope="col">${column}</th>`,
  );
  return html`<div class="table-wrap" role="region" aria-labelledby="${labelledBy}" tabindex="0">
    <table>
      <thead>
        <tr>
          ${headers}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

export interface ConfirmedAction {
  action: string;
  /** The question the browser asks before the form is sent (see script.ts). */
  confirm: string;
  csrfToken: string;
  /** The button's text, and its accessible name. */
  text: string;
  label: string;
}

/** A one-button form for an action that cannot be undone: asks first, carries the CSRF token. */
export function confirmedButton({ action, confirm, csrfToken, text, label }: ConfirmedAction): Html {
  return html`<form class="inline" method="post" action="${action}" data-confirm="${confirm}">
    ${csrfInput(csrfToken)}
    <button type="submit" class="revoke" aria-label="${label}">${text}</button>
  </form>`;
}

/** A moment as the pages show it, to the minute in UTC; `none` when there is none. */
export const when = (timestamp: string | null, none: string) =>
  timestamp
    ? html`<time datetime="${timestamp}">${timestamp.slice(0, 16).replace('T', ' ')} UTC</time>`
    : html`<span class="muted">${none}</span>`;

/** Said at the top of a page whose changes a suspended account may not make (DESIGN.md §12, §21). */
export function suspendedNotice({ until, reason }: ActiveSuspension, consequence: string): Html {
  return html`<div class="alert error" role="alert" id="suspended">
    <h2>Your account is suspended</h2>
    <p>
      ${until ? html`Until ${when(until, '')}` : 'Until a moderator lifts it'}: your keys and tokens are
      refused (<code>403 account_suspended</code>) and ${consequence}.
    </p>
    <p>Reason given: ${reason}</p>
  </div>`;
}
