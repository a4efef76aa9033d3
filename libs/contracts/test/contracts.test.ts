import {
  excerptOf,
  mentionedUsernames,
  createKeyBody,
  createPostBody,
  listPostsQuery,
  postOrder,
  text,
  timestamp,
  toTimestamp,
  updatePostBody,
} from '@community/contracts';

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
  it('defaults the list query: latest without q, relevance with it', () => {
    const plain = listPostsQuery.parse({});
    expect(plain).toEqual({ page: 1, limit: 20 });
    expect(postOrder(plain)).toEqual({ sort: 'latest' });
    expect(postOrder(listPostsQuery.parse({ q: ' café ' }))).toEqual({ q: 'café', sort: 'relevance' });
    expect(() => postOrder({ sort: 'relevance' })).toThrow('sort=relevance needs q');
    expect(() => postOrder({ q: 'abc', sort: 'trending' })).toThrow('with q');
  });
});

describe('toTimestamp', () => {
  it('drops milliseconds', () => {
    expect(toTimestamp(new Date('2026-02-07T10:11:12.345Z'))).toBe('2026-02-07T10:11:12Z');
  });
});

describe('dates a client sends', () => {
  it.each(['2027-02-30T00:00:00Z', '2027-13-01T00:00:00Z', '2027-01-01T25:00:00Z', '0000-00-00T00:00:00Z'])(
    'a timestamp is a real instant: %s is not',
    (value) => {
      expect(timestamp.safeParse(value).success).toBe(false);
    },
  );

  it('a timestamp may be any real second up to 9999-12-31T23:59:59Z', () => {
    for (const value of ['2028-02-29T23:59:59Z', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z'])
      expect(timestamp.safeParse(value).success).toBe(true);
  });

  it('expires_at is range-checked after its offset: nothing beyond 9999-12-31Z', () => {
    const expiresAt = (value: string) => createKeyBody.safeParse({ name: 'k', expires_at: value });
    expect(expiresAt('9999-12-31T23:59:59-23:59').success).toBe(false);
    expect(expiresAt('9999-12-31T23:59:59+23:59').success).toBe(true);
    expect(expiresAt('2027-02-29T00:00:00Z').success).toBe(false);
  });
});

describe('mentionedUsernames (DESIGN.md §13)', () => {
  it.each([
    ['@Alice, hi', ['alice']],
    ['(cc @bob_2) and @carol.', ['bob_2', 'carol']],
    ['mail bob@example.com or @dave!', ['dave']],
    ['@al is too short, @x_y_z is fine', ['x_y_z']],
    ['@Eve @eve @EVE', ['eve']],
    ['a@b.c, foo@@bar, @@bar, @' + 'x'.repeat(33), []],
    ['@frank\n@grace\t@heidi', ['frank', 'grace', 'heidi']],
    ['@ivan@judy', []],
    ['RTL: שלום @kim ✓ 🎉@lee', ['kim', 'lee']],
  ])('%j names %j', (text, names) => {
    expect(mentionedUsernames(text)).toEqual(names);
  });

  it('takes the first ten distinct names, in order', () => {
    const text = Array.from({ length: 12 }, (_, i) => `@user_${i} @USER_${i}`).join(' ');
    expect(mentionedUsernames(text)).toEqual(Array.from({ length: 10 }, (_, i) => `user_${i}`));
  });
});

describe('excerptOf', () => {
  it('flattens whitespace and cuts at 140 characters, counting emoji as one', () => {
    expect(excerptOf('  a\n\n b\tc ')).toBe('a b c');
    const long = '🎉'.repeat(200);
    expect([...excerptOf(long)]).toHaveLength(140);
    expect(excerptOf(long).endsWith('…')).toBe(true);
  });
});
