import { flagSchema, listEnvelope } from '@community/contracts';
import { actor, publishEvents, testEnvelope, waitFor } from '@community/test-harness';
import { alice, createCategory, createPost, moderator } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// DESIGN.md §21 "Flags need standing", with FLAG_MIN_ACCOUNT_AGE_HOURS at its default (24; the
// harness runs every other test at 0): ten flags an hour per account, flags of accounts younger than
// a day are queued but hide nothing, and staff content is only ever queued.

let h: PostsHarness;
let category: number;
beforeAll(async () => {
  h = await startPostsService('flag_standing', { env: { FLAG_MIN_ACCOUNT_AGE_HOURS: '24' } });
  category = (await createCategory(h, 'Standing')).id;
  // The consumer binds its queue once the broker counts as connected: a user event published earlier
  // would reach no queue.
  const rabbitmq = async () =>
    ((await (await fetch(`${h.url}/readyz`)).json()) as { checks: { rabbitmq: { status: string } } }).checks
      .rabbitmq.status;
  await waitFor(async () => (await rabbitmq()) === 'ok', { what: 'posts-service to consume events' });
});
afterAll(() => h.stop());

const HOUR = 3_600_000;
const bystander = actor(9001);
let nextId = 7000;

/** A member whose account users-service created `hoursAgo` hours ago, as its user.registered says. */
async function member(hoursAgo: number) {
  const id = nextId++;
  const at = new Date(Date.now() - hoursAgo * HOUR);
  await publishEvents(h.exchange, [
    testEnvelope('user.registered', { id, username: `member${id}`, display_name: `M ${id}` }, at),
  ]);
  await waitFor(async () => (await h.sql`select 1 from authors where id = ${id}`).length > 0, {
    what: `the author ${id} replicated`,
  });
  return actor(id);
}
const members = (count: number, hoursAgo: number) =>
  Promise.all(Array.from({ length: count }, () => member(hoursAgo)));

const flag = (as: ReturnType<typeof actor>, path: string) =>
  h.call(as, 'POST', `${path}/flags`, { body: { reason: 'spam' } });
const statusFor = async (path: string) => (await h.call(bystander, 'GET', path)).status;
const queued = async (type: string, id: number) =>
  listEnvelope(flagSchema)
    .parse((await h.call(moderator, 'GET', `/flags?target_type=${type}&limit=100`)).body)
    .data.filter((f) => f.target_id === id).length;

describe('accounts younger than FLAG_MIN_ACCOUNT_AGE_HOURS', () => {
  it('queue their flags but cannot hide a post, however many of them flag it', async () => {
    const post = await createPost(h, alice, { category_id: category });
    // Three fresh accounts, and one posts-service has not heard of yet: none has standing.
    const fresh = [...(await members(3, 1)), actor(9999)];
    for (const as of fresh) expect((await flag(as, `/posts/${post.id}`)).status).toBe(201);
    expect(await statusFor(`/posts/${post.id}`)).toBe(200);
    expect(await queued('post', post.id)).toBe(4);
  });

  it('hides a post on the third flag of accounts a day old, whatever fresh ones add', async () => {
    const post = await createPost(h, alice, { category_id: category });
    const [fresh, old] = [await members(2, 23), await members(3, 25)];
    for (const as of [...fresh, old[0]!, old[1]!])
      expect((await flag(as, `/posts/${post.id}`)).status).toBe(201);
    expect(await statusFor(`/posts/${post.id}`)).toBe(200);
    expect((await flag(old[2]!, `/posts/${post.id}`)).status).toBe(201);
    expect(await statusFor(`/posts/${post.id}`)).toBe(404);
    const [hide] = await h.sql<{ reason: string }[]>`
      select payload->'data'->>'reason' as reason from outbox
      where event = 'moderation.action' and payload->'data'->>'target_id' = ${String(post.id)}`;
    expect(hide?.reason).toBe('3 open flags: spam');
  });
});

describe("an account's age", () => {
  it('is the time of its user.registered, even when its user.updated arrived first', async () => {
    const id = nextId++;
    const profile = { id, username: `late${id}`, display_name: 'Late' };
    await publishEvents(h.exchange, [testEnvelope('user.updated', { ...profile, avatar: null })]);
    await waitFor(async () => (await h.sql`select 1 from authors where id = ${id}`).length > 0, {
      what: 'the profile replicated',
    });
    await publishEvents(h.exchange, [
      testEnvelope('user.registered', profile, new Date(Date.now() - 48 * HOUR)),
    ]);
    await waitFor(
      async () =>
        (await h.sql`select 1 from authors where id = ${id} and registered_at is not null`).length > 0,
      { what: 'the registration recorded' },
    );
    const post = await createPost(h, alice, { category_id: category });
    const [one, two] = await members(2, 48);
    for (const as of [one!, two!, actor(id)]) expect((await flag(as, `/posts/${post.id}`)).status).toBe(201);
    expect(await statusFor(`/posts/${post.id}`)).toBe(404);
  });
});

describe('staff content', () => {
  it("never hides an admin's announcement or a moderator's comment, only queues their flags", async () => {
    const announcement = await createPost(h, h.admin, { category_id: category, title: 'Announcement' });
    const made = await h.call(moderator, 'POST', `/posts/${announcement.id}/comments`, {
      body: { content: 'Read the rules' },
    });
    const comment = made.body.data.id as number;
    for (const as of await members(4, 48)) {
      expect((await flag(as, `/posts/${announcement.id}`)).status).toBe(201);
      expect((await flag(as, `/comments/${comment}`)).status).toBe(201);
    }
    expect(await statusFor(`/posts/${announcement.id}`)).toBe(200);
    expect(await statusFor(`/comments/${comment}`)).toBe(200);
    expect([await queued('post', announcement.id), await queued('comment', comment)]).toEqual([4, 4]);
  });
});

describe('ten flags an hour', () => {
  const posts = async (count: number) => {
    const made = [];
    for (let i = 0; i < count; i++) made.push(await createPost(h, alice, { category_id: category }));
    return made;
  };

  it('refuses an 11th flag within the hour with 429, Retry-After and retry_after', async () => {
    const [flagger] = await members(1, 48);
    const targets = await posts(11);
    // A flag that is not filed (a second one on the same post, 409) uses none of the ten.
    expect((await flag(flagger!, `/posts/${targets[0]!.id}`)).status).toBe(201);
    expect((await flag(flagger!, `/posts/${targets[0]!.id}`)).status).toBe(409);
    for (const post of targets.slice(1, 10))
      expect((await flag(flagger!, `/posts/${post.id}`)).status).toBe(201);

    const refused = await flag(flagger!, `/posts/${targets[10]!.id}`);
    expect([refused.status, refused.body.error]).toEqual([429, 'rate_limit_exceeded']);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(refused.body.retry_after).toBe(retryAfter);
    expect(retryAfter).toBeGreaterThan(3_500);
    expect(retryAfter).toBeLessThanOrEqual(3_600);
    expect(await queued('post', targets[10]!.id)).toBe(0);
    // Someone else's budget is their own.
    const [other] = await members(1, 48);
    expect((await flag(other!, `/posts/${targets[10]!.id}`)).status).toBe(201);
  });

  it('files exactly ten of fifteen flags sent at once, and refuses the rest with 429', async () => {
    const [flagger] = await members(1, 48);
    const targets = await posts(15);
    const answers = await Promise.all(targets.map((post) => flag(flagger!, `/posts/${post.id}`)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), ...Array(5).fill(429)]);
    const [filed] = await h.sql<{ n: number }[]>`
      select count(*)::int as n from flags where flagger_id = ${flagger!.userId}`;
    expect(filed!.n).toBe(10);
  });
});
