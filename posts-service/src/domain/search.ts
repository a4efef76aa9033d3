import { escapeHtml } from '@community/http-kit';
import { HIGHLIGHT } from '../db/search';

/**
 * A ts_headline fragment as HTML (DESIGN.md §11): everything escaped, then the private-use marks
 * ts_headline put around each match become `<mark>…</mark>` — the only markup, whatever the text
 * held (a post's own `<mark>` or `<script>` comes out as text).
 */
export function highlightHtml(fragment: string): string {
  return escapeHtml(fragment).replaceAll(HIGHLIGHT.start, '<mark>').replaceAll(HIGHLIGHT.stop, '</mark>');
}
