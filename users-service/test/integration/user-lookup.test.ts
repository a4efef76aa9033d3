import { listEnvelope, SEARCH_CAP, userSchema } from '@community/contracts';
import { actor } from '@community/test-harness';
import { startUsersService, type UsersHarness } from '../support/users-harness';

// DESIGN.md §11: GET /users?q= — prefix lookup for @mention completion, case and accents aside.

let h: UsersHarness;
const reader = actor(1, 'member', ['read']);
beforeAll(async () => {
  h = await startUsersService('user_lookup');
  let n = 0;
  for (const [username, display_name] of [
    ['rene_m', 'René Magritte'],
    ['renee', 'Renée Fleming'],
    ['ren', 'Ren'],
    ['zoe_k', 'Zoë Kravitz'],
    ['percent', '100% Sure_Thing'],
    ['Zola_fan', 'Émile Zola'],
  ]) {
    const res = await h.call(null, 'POST', '/auth/register', {
      body: { username, email: `${username}@example.test`, password: 'a good long password', display_name },
      clientIp: `10.9.0.${++n}`,
    });
    if (res.status !== 201) throw new Error(res.text);
  }
});
afterAll(() => h.stop());

async function lookUp(q: string, extra = '') {
  const res = await h.call(reader, 'GET', `/users?q=${encodeURIComponent(q)}${extra}`);
  expect([q, res.status]).toEqual([q, 200]);
  return listEnvelope(userSchema)
    .parse(res.body)
    .data.map((u) => u.username);
}

describe('GET /users?q=', () => {
  it('finds usernames and display names by prefix, the username itself first', async () => {
    expect(await lookUp('ren')).toEqual(['ren', 'renee', 'rene_m']);
    expect(await lookUp('RENÉ')).toEqual(['renee', 'rene_m']);
    expect(await lookUp('magr')).toEqual([]); // display names match from their start
    expect(await lookUp('rené mag')).toEqual(['rene_m']);
  });

  it('ignores case and accents both ways', async () => {
    expect(await lookUp('zoe')).toEqual(['zoe_k']);
    expect(await lookUp('zoë')).toEqual(['zoe_k']);
    expect(await lookUp('ZOË K')).toEqual(['zoe_k']);
    expect(await lookUp('emile zo')).toEqual(['zola_fan']);
    expect(await lookUp('ÉMILE')).toEqual(['zola_fan']);
    // Usernames are stored lower-case; the lookup is by any case.
    expect(await lookUp('ZOLA')).toEqual(['zola_fan']);
  });

  it('treats % and _ as themselves', async () => {
    expect(await lookUp('10')).toEqual(['percent']);
    expect(await lookUp('100%')).toEqual(['percent']);
    expect(await lookUp('100% sure_')).toEqual(['percent']);
    expect(await lookUp('%%')).toEqual([]);
    expect(await lookUp('__')).toEqual([]);
  });

  it('pages, and refuses a short q or q with a sort', async () => {
    const res = await h.call(reader, 'GET', '/users?q=re&limit=1&page=2');
    expect([res.body.data[0].username, res.body.pagination.total_items]).toEqual(['renee', 3]);
    for (const [query, field] of [
      ['q=r', 'q'],
      [`q=${'r'.repeat(201)}`, 'q'],
      ['q=ren&sort=newest', 'sort'],
    ]) {
      const bad = await h.call(reader, 'GET', `/users?${query}`);
      expect([query, bad.status, bad.body.details.field]).toEqual([query, 400, field]);
    }
  });

  it('pages from the username matches into the display-name matches in one order', async () => {
    const insert = (rows: [string, string][]) =>
      h.sql`insert into users (username, email, password_hash, display_name)
            select u, u || '@example.test', 'x', d from unnest(${rows.map((r) => r[0])}::text[], ${rows.map((r) => r[1])}::text[]) t(u, d)`;
    await insert([
      ['orion_x', 'Hunter'],
      ['ori', 'Someone'],
      ['oriole', 'Bird'],
      ['zz_a', 'Orinoco'],
      ['aa_b', 'Orient Express'],
    ]);
    const whole = ['ori', 'oriole', 'orion_x', 'aa_b', 'zz_a'];
    expect(await lookUp('ori', '&limit=10')).toEqual(whole);
    const paged = [];
    for (const page of [1, 2, 3, 4]) paged.push(...(await lookUp('ori', `&limit=2&page=${page}`)));
    expect(paged).toEqual(whole);
    expect(await lookUp('ori', '&limit=3&page=2')).toEqual(whole.slice(3));
    const counted = await h.call(reader, 'GET', '/users?q=ori&limit=2');
    expect(counted.body.pagination).toMatchObject({
      total_items: 5,
      total_pages: 3,
      total_items_capped: false,
    });
  });

  it(`counts up to ${SEARCH_CAP} matches and serves those, the pages past them empty`, async () => {
    await h.sql`insert into users (username, email, password_hash, display_name)
                select 'wombat_' || i, 'wombat' || i || '@example.test', 'x', 'W' from generate_series(1, ${SEARCH_CAP + 1}) i`;
    const first = await h.call(reader, 'GET', '/users?q=wombat&limit=100');
    expect(first.body.pagination).toEqual({
      current_page: 1,
      total_pages: SEARCH_CAP / 100,
      total_items: SEARCH_CAP,
      per_page: 100,
      total_items_capped: true,
    });
    expect(await lookUp('wombat', '&limit=100&page=10')).toHaveLength(100);
    expect(await lookUp('wombat', '&limit=100&page=11')).toEqual([]);
    // Shortest first: wombat_1 … wombat_9 lead.
    expect((await lookUp('wombat', '&limit=9')).sort()).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `wombat_${i}`),
    );
    const few = await h.call(reader, 'GET', '/users?q=ren');
    expect(few.body.pagination).toMatchObject({ total_items: 3, total_items_capped: false });
  });
});
