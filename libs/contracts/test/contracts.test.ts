import { createPostBody, listPostsQuery, text, toTimestamp, updatePostBody } from '@community/contracts';

describe('text()', () => {
  const title = text({ min: 1, max: 3 });
  it('trims and measures in characters, not UTF-16 units', () => {
    expect(title.parse('  ab  ')).toBe('ab');
    expect(title.parse('🎉🎉🎉')).toBe('🎉🎉🎉');
    expect(title.safeParse('abcd').success).toBe(false);
  });
  it('refuses NUL and lone surrogates, and calls an empty string required', () => {
    const issue = (value: string) =>
      (title.safeParse(value).error?.issues[0] as { params?: { code: string } }).params?.code;
    expect(issue('a\u0000')).toBe('invalid_value');
    expect(issue('\ud83d')).toBe('invalid_value');
    expect(issue('   ')).toBe('required');
  });
});

describe('post bodies', () => {
  it('lower-cases tags and drops duplicates in first-seen order', () => {
    const body = createPostBody.parse({ title: 't', content: 'c', category_id: 1, tags: ['B', 'a', 'b'] });
    expect(body.tags).toEqual(['b', 'a']);
  });
  it('is strict about unknown keys and types', () => {
    expect(createPostBody.safeParse({ title: 't', content: 'c', category_id: '1' }).success).toBe(false);
    expect(updatePostBody.safeParse({ views: 1 }).success).toBe(false);
  });
  it('defaults the list query', () => {
    expect(listPostsQuery.parse({})).toEqual({ page: 1, limit: 20, sort: 'latest' });
  });
});

describe('toTimestamp', () => {
  it('drops milliseconds', () => {
    expect(toTimestamp(new Date('2026-02-07T10:11:12.345Z'))).toBe('2026-02-07T10:11:12Z');
  });
});
