import { postListEntry, SEARCH_CAP, timeListEnvelope } from '@community/contracts';
import { alice, bob, createCategory, createPost, startWithCategory } from '../support/fixtures';
import type { PostsHarness } from '../support/posts-harness';

// DESIGN.md §11: GET /posts?q= — web-search syntax, English stemming, accents ignored, title first.

let h: PostsHarness;
let category: number;
beforeAll(async () => ({ h, category } = await startWithCategory('search', 'Search')));
afterAll(() => h.stop());

const post = (
  fields: { title: string; content?: string; tags?: string[]; category_id?: number },
  as = alice,
) => createPost(h, as, { content: 'Nothing to see here.', category_id: category, ...fields });

async function search(query: string, status = 200) {
  const res = await h.call(alice, 'GET', `/posts?${query}`);
  expect([res.status, res.text]).toEqual([status, expect.any(String)]);
  if (status === 200) timeListEnvelope(postListEntry).parse(res.body);
  return res;
}

// As fetch sends it (the signature covers the URL): `'` too is percent-encoded in a query.
const q = (text: string, extra = '') =>
  search(`q=${encodeURIComponent(text).replaceAll("'", '%27')}${extra}`);
const titles = async (text: string, extra = '') =>
  (await q(text, extra)).body.data.map((p: { title: string }) => p.title);

describe('GET /posts?q=', () => {
  it('stems English words: running finds run, and run finds running', async () => {
    await post({ title: 'Running the zorblax marathon' });
    await post({ title: 'How to run a zorblax' });
    expect((await titles('zorblax run')).sort()).toEqual([
      'How to run a zorblax',
      'Running the zorblax marathon',
    ]);
    expect((await titles('zorblax running')).length).toBe(2);
  });

  it('understands phrases, exclusion and or', async () => {
    await post({ title: 'A red quokka apple', content: 'fresh' });
    await post({ title: 'A red and green quokka apple', content: 'fresh' });
    await post({ title: 'Quokka bananas', content: 'yellow' });
    expect(await titles('"red quokka apple"')).toEqual(['A red quokka apple']);
    expect(await titles('quokka apple -green')).toEqual(['A red quokka apple']);
    expect((await titles('quokka banana or quokka green')).sort()).toEqual([
      'A red and green quokka apple',
      'Quokka bananas',
    ]);
  });

  it('ignores accents both ways', async () => {
    await post({ title: 'Le Café Wombatière', content: 'crème brûlée' });
    expect(await titles('cafe wombatiere')).toEqual(['Le Café Wombatière']);
    expect(await titles('CAFÉ creme brulee')).toEqual(['Le Café Wombatière']);
  });

  it('ranks a title match above content-only matches, however many', async () => {
    await post({ title: 'Notes', content: 'xyloph xyloph xyloph xyloph xyloph xyloph in the text only' });
    await post({ title: 'Xyloph', content: 'once' });
    await post({ title: 'Tagged', content: 'none', tags: ['xyloph'] });
    const ranked = await titles('xyloph');
    expect([ranked[0], ranked.slice(1).sort()]).toEqual(['Xyloph', ['Notes', 'Tagged']]);
    // sort=latest keeps the matches and orders them newest first.
    expect(await titles('xyloph', '&sort=latest')).toEqual(['Tagged', 'Xyloph', 'Notes']);
  });

  it('combines with category, author and tag filters', async () => {
    const other = (await createCategory(h, 'Elsewhere')).id;
    await post({ title: 'Gnu one', tags: ['gnus'] });
    await post({ title: 'Gnu two', category_id: other });
    await post({ title: 'Gnu three' }, bob);
    expect(await titles('gnu', `&category=${other}`)).toEqual(['Gnu two']);
    expect(await titles('gnu', `&author=${bob.userId}`)).toEqual(['Gnu three']);
    expect(await titles('gnu', '&tag=gnus')).toEqual(['Gnu one']);
    const paged = await q('gnu', '&limit=1&page=2');
    expect(paged.body.pagination).toMatchObject({
      current_page: 2,
      total_pages: 3,
      total_items: 3,
      per_page: 1,
    });
    expect(paged.headers.get('link')).toContain('q=gnu');
    expect(paged.body.pagination.next_cursor).toBeNull();
  });

  it('forgets a deleted post and finds an edited title at once', async () => {
    const gone = await post({ title: 'Ephemeral okapi' });
    const edited = await post({ title: 'Plain title' });
    expect(await titles('okapi')).toEqual(['Ephemeral okapi']);
    expect((await h.call(alice, 'DELETE', `/posts/${gone.id}`)).status).toBe(200);
    expect(await titles('okapi')).toEqual([]);
    expect(
      (await h.call(alice, 'PUT', `/posts/${edited.id}`, { body: { title: 'Renamed narwhal' } })).status,
    ).toBe(200);
    expect(await titles('narwhal')).toEqual(['Renamed narwhal']);
  });

  it('highlights matches with <mark> and escapes everything else, hostile text included', async () => {
    const hostile = '<mark>fake</mark> <script>alert("x")</script> & capybara \ue000trick\ue001';
    await post({
      title: hostile,
      content: `Before <img src=x onerror=alert(1)> the capybara's "home" after.`,
    });
    const [item] = (await q('capybara')).body.data;
    expect(item.title).toBe(hostile);
    const { title, content } = item.highlight;
    for (const html of [title, content]) {
      expect(html.replaceAll('<mark>capybara</mark>', '')).not.toMatch(/[<>]/);
      expect(html).toContain('<mark>capybara</mark>');
      expect(html).not.toContain('\ue000');
    }
    expect(title).toContain('&lt;script&gt;');
    expect(title).toContain('&amp;');
    expect(content).toContain('<mark>capybara</mark>&#39;s &quot;home&quot;');
  });

  it('returns unicode, emoji and right-to-left text byte for byte', async () => {
    const content = 'مرحبا بالعالم 🌍 — 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and a pangolin, שלום';
    const created = await post({ title: 'Pangolin 🦔 ‮reversed‬', content });
    const [item] = (await q('pangolin')).body.data;
    expect([item.id, item.title, item.content]).toEqual([created.id, 'Pangolin 🦔 ‮reversed‬', content]);
    expect(item.highlight.content).toContain('<mark>pangolin</mark>');
    expect(await titles('مرحبا')).toEqual(['Pangolin 🦔 ‮reversed‬']);
  });

  it('answers any text: stop words only, stray quotes and operators', async () => {
    for (const text of ['the of', '"unbalanced', '- -', 'or or', '!!! ???', "' or 1=1 --", '\\x00']) {
      expect([text, (await q(text)).status]).toEqual([text, 200]);
    }
  });

  it('refuses q outside 2–200 characters and sorts that do not fit', async () => {
    for (const [query, field, code] of [
      ['q=a', 'q', 'too_short'],
      ['q=', 'q', 'too_short'],
      ['q=%20%20x%20', 'q', 'too_short'],
      [`q=${'w'.repeat(201)}`, 'q', 'too_long'],
      ['sort=relevance', 'sort', 'invalid_value'],
      ['q=abc&sort=popular', 'sort', 'invalid_value'],
      ['q=abc&cursor=eyJ2IjoxfQ', 'cursor', expect.any(String)],
    ] as const) {
      const res = await search(query, 400);
      expect([query, res.body.error, res.body.details.field, res.body.details.code]).toEqual([
        query,
        'validation_error',
        field,
        code,
      ]);
    }
    expect((await search(`q=${'w'.repeat(200)}`)).status).toBe(200);
    // 200 characters that are each 2 UTF-16 units: counted as characters.
    expect((await search(`q=${encodeURIComponent('🦔'.repeat(200))}`)).status).toBe(200);
  });
});

describe('GET /posts?q= pages through title matches, then the rest, up to SEARCH_CAP', () => {
  it('pages across the title matches into the content matches in one order, as one ranking would', async () => {
    // Three title matches of differing rank (tags and content add to it) and three in the content.
    for (const [title, content] of [
      ['Gecko', 'plain'],
      ['Gecko notes', 'gecko gecko here'],
      ['Gecko again', 'gecko'],
      ['Zero', 'gecko gecko gecko'],
      ['One', 'a gecko'],
      ['Two', 'gecko and gecko'],
    ]) {
      await post({ title: title!, content: content! });
    }
    const whole = await titles('gecko', '&limit=6');
    expect(whole.slice(0, 3).sort()).toEqual(['Gecko', 'Gecko again', 'Gecko notes']);
    expect(whole.slice(3).sort()).toEqual(['One', 'Two', 'Zero']);
    const paged: string[] = [];
    for (const page of [1, 2, 3, 4]) paged.push(...(await titles('gecko', `&limit=2&page=${page}`)));
    expect(paged).toEqual(whole);
    const fourth = await q('gecko', '&limit=4&page=2');
    expect(fourth.body.data.map((p: { title: string }) => p.title)).toEqual(whole.slice(4));
    expect(fourth.body.pagination).toEqual({
      current_page: 2,
      total_pages: 2,
      total_items: 6,
      per_page: 4,
      next_cursor: null,
      total_items_capped: false,
    });
  });

  it('counts a phrase while ranking it, on every page and past the last', async () => {
    await post({ title: 'Green gecko', content: 'one' });
    await post({ title: 'The green gecko', content: 'two' });
    for (const content of ['a green gecko', 'green gecko green gecko', 'the green gecko']) {
      await post({ title: 'Lizards', content });
    }
    await post({ title: 'Gecko green', content: 'a gecko, green' });
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push(await q('"green gecko"', `&limit=2&page=${page}`));
    expect(pages.map((res) => [res.body.data.length, res.body.pagination.total_items])).toEqual([
      [2, 5],
      [2, 5],
      [1, 5],
      [0, 5],
    ]);
    expect(pages[0]!.body.data.map((p: { title: string }) => p.title).sort()).toEqual([
      'Green gecko',
      'The green gecko',
    ]);
  });

  it('never finds a title match whose content holds an excluded word', async () => {
    await post({ title: 'Tapir care', content: 'feeding the tapir at the zoo' });
    await post({ title: 'Tapir walks', content: 'long walks' });
    expect(await titles('tapir -zoo')).toEqual(['Tapir walks']);
    expect((await q('tapir -zoo')).body.pagination.total_items).toBe(1);
  });

  it(`counts up to ${SEARCH_CAP} matches and serves those, the pages past them empty`, async () => {
    const insert = (n: number, word: string) =>
      h.sql`insert into posts (title, slug, content, author_id, category_id)
            select ${word} || ' ' || i, ${word} || '-' || i, 'body', ${alice.userId}, ${category}
            from generate_series(1, ${n}) i`;
    await insert(SEARCH_CAP, 'wallaby');
    const exact = await q('wallaby', '&limit=100&page=10');
    expect([
      exact.body.data.length,
      exact.body.pagination.total_items,
      exact.body.pagination.total_items_capped,
    ]).toEqual([100, SEARCH_CAP, false]);

    await insert(SEARCH_CAP + 5, 'dingo');
    for (const extra of ['', '&sort=latest']) {
      const first = await q('dingo', `&limit=30${extra}`);
      expect(first.body.pagination).toMatchObject({
        total_items: SEARCH_CAP,
        total_items_capped: true,
        total_pages: Math.ceil(SEARCH_CAP / 30),
      });
      const last = /<([^>]+)>; rel="last"/.exec(first.headers.get('link') ?? '')?.[1];
      expect(new URL(last!).searchParams.get('page')).toBe(String(Math.ceil(SEARCH_CAP / 30)));
      // Page 34 of 30 starts at match 990: ten within the cap, then nothing.
      expect((await q('dingo', `&limit=30&page=34${extra}`)).body.data).toHaveLength(10);
      expect((await q('dingo', `&limit=30&page=35${extra}`)).body.data).toEqual([]);
    }
    // Ten pages of a hundred by relevance: every match once, none repeated across the page seams.
    const seen = new Set<number>();
    for (let page = 1; page <= SEARCH_CAP / 100; page++) {
      for (const item of (await q('dingo', `&limit=100&page=${page}`)).body.data) seen.add(item.id);
    }
    expect(seen.size).toBe(SEARCH_CAP);
  });
});

describe(`GET /posts?q= ranks the newest ${SEARCH_CAP} matches (RANKED_MATCHES)`, () => {
  it('leaves out an older title match when newer matches fill the ranked set, and serves it once they do not', async () => {
    const [old] = await h.sql<{ id: number }[]>`
      insert into posts (title, slug, content, author_id, category_id, created_at, updated_at)
      values ('Okapi', 'okapi', 'body', ${alice.userId}, ${category}, now() - interval '1 day', now() - interval '1 day')
      returning id`;
    await h.sql`insert into posts (title, slug, content, author_id, category_id)
                select 'Zoo ' || i, 'zoo-' || i, 'an okapi here', ${alice.userId}, ${category}
                from generate_series(1, ${SEARCH_CAP}) i`;
    const served = new Set<number>();
    for (let page = 1; page <= SEARCH_CAP / 100; page++) {
      for (const item of (await q('okapi', `&limit=100&page=${page}`)).body.data) served.add(item.id);
    }
    expect([served.size, served.has(old!.id)]).toEqual([SEARCH_CAP, false]);
    // One newer match fewer: the title match is among the newest again, and ranked first.
    await h.sql`delete from posts where slug = 'zoo-1'`;
    expect((await titles('okapi', '&limit=1'))[0]).toBe('Okapi');
  });
});

describe('GET /posts?q= finds phrases by their word pairs (migration 0008)', () => {
  /** What `@@` alone finds: the live posts whose search vector matches `text`, by id. */
  const matchedBySql = async (text: string) =>
    (
      await h.sql<{ id: number }[]>`
        select id from posts
        where deleted_at is null and not is_hidden
          and search @@ websearch_to_tsquery('search_english', ${text})
        order by id`
    ).map((row) => row.id);
  const pairsOf = async (text: string) =>
    (
      await h.sql<{ pairs: string[] }[]>`
        select tsquery_bigrams(websearch_to_tsquery('search_english', ${text})) as pairs`
    )[0]!.pairs;
  const ids = async (text: string, extra = '') =>
    ((await q(text, `&limit=100${extra}`)).body.data as { id: number }[])
      .map((p) => p.id)
      .sort((a, b) => a - b);

  it('finds exactly what the phrase operator finds, whatever the phrase holds', async () => {
    const texts = [
      { title: 'Zumbat quillon ledger', content: 'the zumbat quillon ledger was kept' },
      { title: 'Quillon zumbat', content: 'reversed: quillon then zumbat, never zumbat quillon' },
      { title: 'Gap', content: 'a zumbat of the quillon, words between them' },
      { title: 'Hyphens', content: 'the e-mail zumbat server of quillon' },
      { title: 'Accents', content: 'Crème Zumbatière at the café quillon' },
      { title: "O'Zumbat quillon", content: "it's O'Zumbat's quillon, and l'été zumbat" },
      { title: 'Repeats zumbat zumbat quillon quillon', content: 'zumbat zumbat zumbat' },
      { title: 'Across the seam ends with zumbat', content: 'quillon starts the content' },
      { title: 'Tagged', content: 'tags then content', tags: ['zumbat-quillon'] },
      { title: 'Unrelated', content: 'nothing of the kind' },
    ];
    for (const fields of texts) await post(fields);
    const queries = [
      '"zumbat quillon"',
      '"quillon zumbat"',
      '"zumbat quillon ledger"',
      '"zumbat of the quillon"',
      '"e-mail zumbat server"',
      '"creme zumbatiere"',
      '"cafe quillon"',
      '"o\'zumbat quillon"',
      '"l\'été zumbat"',
      '"zumbat zumbat quillon"',
      '"zumbat quillon" ledger',
      '"zumbat quillon" or unrelated',
      'zumbat -"zumbat quillon"',
      '"zumbat quillon" -ledger',
      '"zumbat-quillon"',
      '"ends with zumbat quillon starts"',
    ];
    for (const text of queries) {
      const expected = await matchedBySql(text);
      expect([text, await ids(text)]).toEqual([text, expected]);
      expect([text, await ids(text, '&sort=latest')]).toEqual([text, expected]);
      expect([text, (await q(text)).body.pagination.total_items]).toEqual([text, expected.length]);
    }
    // The test goes through the narrowing: most of these phrases have pairs to look up.
    expect(await pairsOf('"zumbat quillon ledger"')).toEqual(
      expect.arrayContaining(['zumbat quillon', 'quillon ledger']),
    );
    expect(await pairsOf('"zumbat quillon" or unrelated')).toEqual([]);
    expect(await pairsOf('zumbat -"zumbat quillon"')).toEqual([]);
    expect(await matchedBySql('"zumbat quillon"')).not.toEqual([]);
  });

  it('keeps the pairs of an edited post: a phrase gained is found, a phrase lost is not', async () => {
    const edited = await post({ title: 'Shifting', content: 'the narbel is near the vossik' });
    expect(await ids('"narbel vossik"')).toEqual([]);
    const edit = (content: string) => h.call(alice, 'PUT', `/posts/${edited.id}`, { body: { content } });
    expect((await edit('now the narbel vossik stands together')).status).toBe(200);
    expect(await ids('"narbel vossik"')).toEqual([edited.id]);
    expect((await edit('and apart again: vossik, then narbel')).status).toBe(200);
    expect(await ids('"narbel vossik"')).toEqual([]);
  });
});
