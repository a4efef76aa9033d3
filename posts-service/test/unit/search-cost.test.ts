import { QueryTooComplexError } from '@community/contracts';
import { assertSearchable, searchCost } from '../../src/domain/search';

// DESIGN.md §21: what a search's `q` costs, read from the text as websearch_to_tsquery reads it.

describe('searchCost', () => {
  it.each([
    ['kernel compilers', 2, 0],
    ['"a phrase of five words"', 5, 0],
    ['-spam eggs', 2, 0],
    ['the of and', 3, 0],
    ['café crème-brûlée', 3, 0],
    ['cats or dogs', 2, 2],
    ['cats OR dogs or "big birds"', 4, 3],
    ['"cats or dogs" mice', 4, 0],
    ['or cats', 2, 0],
    ['cats or', 2, 0],
    ['cats or or dogs', 3, 2],
    ['cats -or dogs', 3, 0],
    ['"unclosed quote or not', 4, 0],
  ])('%j holds %i terms and %i or-branches', (q, terms, orBranches) => {
    expect(searchCost(q)).toEqual({ terms, orBranches });
  });
});

describe('assertSearchable', () => {
  it('takes 16 terms and 8 branches, and refuses one more of either with the counts and the limits', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`);
    expect(() => assertSearchable(words(16).join(' '))).not.toThrow();
    expect(() => assertSearchable(words(8).join(' or '))).not.toThrow();
    for (const [q, details] of [
      [words(17).join(' '), { terms: 17, max_terms: 16, or_branches: 0, max_or_branches: 8 }],
      [words(9).join(' or '), { terms: 9, max_terms: 16, or_branches: 9, max_or_branches: 8 }],
    ] as const) {
      let thrown: unknown;
      try {
        assertSearchable(q);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(QueryTooComplexError);
      expect((thrown as QueryTooComplexError).details).toEqual(details);
    }
  });
});
