import { csrfInput } from './forms';
import { html, type Html } from './html';

export interface TableSpec {
  /** Id of the heading that names the table, for screen readers. */
  labelledBy: string;
  /** Column headers; the last one (the buttons) is shown muted. */
  columns: string[];
  rows: Html[];
}

/** A table that scrolls sideways on a phone rather than overflowing the page. */
export function dataTable({ labelledBy, columns, rows }: TableSpec): Html {
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
