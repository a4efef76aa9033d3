import { parsePostsConfig } from '../../src/config';

// DESIGN.md §21: the defaults a stack gets when it sets nothing.

const INTERNAL_TOKEN = 'a-test-token-0123456789abcdef';

it('lets a search hold the database 1 s and counts flags of accounts a day old, by default', () => {
  const config = parsePostsConfig({ INTERNAL_TOKEN });
  expect([config.SEARCH_TIMEOUT_MS, config.FLAG_MIN_ACCOUNT_AGE_HOURS]).toEqual([1_000, 24]);
});

it('takes 0 for FLAG_MIN_ACCOUNT_AGE_HOURS (every flag counts) and refuses what is no whole number of hours', () => {
  expect(
    parsePostsConfig({ INTERNAL_TOKEN, FLAG_MIN_ACCOUNT_AGE_HOURS: '0' }).FLAG_MIN_ACCOUNT_AGE_HOURS,
  ).toBe(0);
  for (const bad of ['-1', '1.5', 'a day'])
    expect(() => parsePostsConfig({ INTERNAL_TOKEN, FLAG_MIN_ACCOUNT_AGE_HOURS: bad })).toThrow(
      /FLAG_MIN_ACCOUNT_AGE_HOURS/,
    );
});
