import { Html } from './html';

/**
 * One small stylesheet: a single column that reads well from a 375px phone to a desktop. A constant
 * (no escaping needed) in a plain string, so prettier keeps it compact.
 */
export const STYLES = new Html(`<style>
  :root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #fff; --box: #f6f8fa;
    --line: #d1d9e0; --accent: #0b57d0; --danger: #b3261e; --ok: #1a7f37; }
  @media (prefers-color-scheme: dark) {
    :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --box: #151b23; --line: #3d444d;
      --accent: #4493f8; --danger: #f85149; --ok: #3fb950; }
  }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    color: var(--fg); background: var(--bg); }
  .wrap { max-width: 62rem; margin: 0 auto; padding: 0 1rem; }
  main form:not(.inline), main > p, .alert, .new-key, fieldset { max-width: 40rem; }
  a { color: var(--accent); }
  :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  .skip { position: absolute; left: -999px; }
  .skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; }
  header.site { border-bottom: 1px solid var(--line); }
  header.site .wrap { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center;
    justify-content: space-between; padding: .75rem 1rem; }
  .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
  nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: center; list-style: none;
    margin: 0; padding: 0; }
  nav [aria-current='page'] { font-weight: 700; }
  .who { color: var(--muted); }
  main { padding-bottom: 3rem; }
  h1 { font-size: 1.6rem; margin: 1.5rem 0 1rem; }
  h2 { font-size: 1.2rem; margin: 2rem 0 .75rem; }
  .field { margin: 0 0 1rem; }
  label { display: block; font-weight: 600; margin-bottom: .25rem; }
  input:not([type='checkbox']):not([type='radio']), textarea { width: 100%; padding: .5rem .625rem; font: inherit;
    color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; }
  [aria-invalid='true'] { border-color: var(--danger) !important; }
  .hint { color: var(--muted); font-size: .875rem; margin: 0 0 .25rem; }
  .field-error { color: var(--danger); font-size: .875rem; font-weight: 600; margin: .25rem 0 0; }
  fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 1rem; padding: .5rem 1rem 1rem; }
  legend { font-weight: 600; padding: 0 .25rem; }
  .check { display: flex; gap: .5rem; align-items: baseline; margin: .5rem 0 0; }
  .check label { display: inline; font-weight: 400; margin: 0; }
  button { font: inherit; padding: .5rem 1rem; border-radius: 6px; border: 1px solid var(--accent);
    background: var(--accent); color: #fff; cursor: pointer; }
  button.link { background: none; border: none; color: var(--accent); padding: 0; text-decoration: underline; }
  button.danger { background: var(--danger); border-color: var(--danger); }
  button.revoke { background: none; color: var(--danger); border-color: var(--danger); padding: .25rem .75rem; }
  form.inline { display: inline; margin: 0; }
  .alert { border: 1px solid var(--danger); border-left-width: 4px; border-radius: 6px;
    padding: .5rem 1rem; margin: 0 0 1rem; }
  .alert.ok { border-color: var(--ok); }
  .alert p { margin: .25rem 0; }
  .new-key { border: 2px solid var(--ok); background: var(--box); border-radius: 8px; padding: 1rem; margin: 1rem 0; }
  .new-key h2 { margin-top: 0; }
  #new-key { display: block; margin: .5rem 0; padding: .5rem; overflow-wrap: anywhere; font-size: 1rem;
    background: var(--bg); border: 1px solid var(--line); border-radius: 4px; user-select: all; }
  .table-wrap { overflow-x: auto; margin: 0 0 1.5rem; }
  table { border-collapse: collapse; width: 100%; font-size: .9rem; }
  th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
  td.wrap { white-space: normal; overflow-wrap: anywhere; min-width: 12rem; }
  /* Phones: every key becomes a small card, its actions in reach instead of off to the right. */
  @media (max-width: 44rem) {
    table, tbody, tr, td { display: block; }
    thead { position: absolute; left: -9999px; }
    tr { border-bottom: 1px solid var(--line); padding: .5rem 0; }
    td { border: 0; padding: .125rem 0; white-space: normal; }
    td[data-label]::before { content: attr(data-label); display: inline-block; min-width: 6.5rem; color: var(--muted); }
    td.actions { padding-top: .5rem; }
  }
  .muted { color: var(--muted); }
  .avatar { border-radius: 50%; vertical-align: middle; }
</style>`);
