import { listEnvelope, userSchema } from '@community/contracts';
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
});
