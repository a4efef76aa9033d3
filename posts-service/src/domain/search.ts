import { QueryTooComplexError } from '@community/contracts';
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

/** The most a search may hold (DESIGN.md §21): beyond them a query can hold the database for seconds. */
export const MAX_SEARCH_TERMS = 16;
export const MAX_OR_BRANCHES = 8;

/** What a search's `q` costs: its words, and the alternatives its `or`s join (0 without an `or`). */
export interface SearchCost {
  terms: number;
  orBranches: number;
}

/** A phrase (from a quote to the next, or to the end), or a run of anything but spaces and quotes. */
const TOKEN = /"[^"]*"?|[^\s"]+/gu;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * Reads `q` as websearch_to_tsquery does, from the text alone. Every word counts as a term: a
 * phrase's words, an excluded `-word`, a stop word. `or` outside quotes, after a term and before
 * another, joins alternatives and is no term; anywhere else it is a word. An unclosed quote makes
 * the rest a phrase, as PostgreSQL does. A hyphenated word counts its parts.
 */
export function searchCost(q: string): SearchCost {
  const tokens = q.match(TOKEN) ?? [];
  let terms = 0;
  let ors = 0;
  let afterTerm = false;
  tokens.forEach((token, i) => {
    if (afterTerm && i < tokens.length - 1 && token.toLowerCase() === 'or') {
      ors++;
      afterTerm = false;
      return;
    }
    const words = token.match(WORD)?.length ?? 0;
    terms += words;
    afterTerm ||= words > 0;
  });
  return { terms, orBranches: ors === 0 ? 0 : ors + 1 };
}

/** Refuses a search too costly to run, before it waits for a slot or reaches the database. */
export function assertSearchable(q: string): void {
  const { terms, orBranches } = searchCost(q);
  if (terms <= MAX_SEARCH_TERMS && orBranches <= MAX_OR_BRANCHES) return;
  throw new QueryTooComplexError(
    `a search may hold at most ${MAX_SEARCH_TERMS} terms and ${MAX_OR_BRANCHES} "or" branches; this one holds ${terms} and ${orBranches}`,
    { terms, max_terms: MAX_SEARCH_TERMS, or_branches: orBranches, max_or_branches: MAX_OR_BRANCHES },
  );
}
