import type { EventEnvelope } from '@community/events';
import { waitFor, withProbe, type Probed } from '@community/test-harness';
import { IdempotencyKeySweeper } from '@community/service-runtime';
import { createLogger } from '@community/logging';
import { alice, bob, createCategory } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// DESIGN.md §10: a POST with an Idempotency-Key is done once, however often it is sent.

let h: Probed<PostsHarness>;
let category: number;
beforeAll(async () => {
  h = await withProbe(await startPostsService('idempotency'));
  category = (await createCategory(h, 'Retries')).id;
});
afterAll(() => h.stop());

let n = 0;
const newKey = () => `key-${Date.now()}-${++n}`;

const postBody = (title: string) => ({ title, content: 'Sent until it arrives', category_id: category });

const createWithKey = (key: string, body: unknown = postBody('Once only'), as = alice) =>
  h.call(as, 'POST', '/posts', { body, headers: { 'Idempotency-Key': key } });

const postsTitled = async (title: string) =>
  Number((await h.sql<{ n: string }[]>`select count(*) as n from posts where title = ${title}`)[0]!.n);

const createdEvents = (postId: number) =>
  (h.probe.bodies() as EventEnvelope<any>[]).filter(
    (e) => e.event === 'post.created' && e.data.id === postId,
  );

describe('Idempotency-Key on POST', () => {
  it('answers a retry with the first answer, creates one post and emits one event', async () => {
    const key = newKey();
    const first = await createWithKey(key, postBody('Retried post'));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await createWithKey(key, postBody('Retried post'));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await postsTitled('Retried post')).toBe(1);
    await waitFor(() => createdEvents(first.body.data.id).length > 0, {
      what: 'post.created',
      timeoutMs: 5000,
    });
    // Time for a second event to arrive, if the replay had emitted one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(createdEvents(first.body.data.id)).toHaveLength(1);
  });

  it('refuses the key for another body or path with 422 and does nothing', async () => {
    const key = newKey();
    expect((await createWithKey(key, postBody('First use'))).status).toBe(201);
    const otherBody = await createWithKey(key, postBody('Second use'));
    expect([otherBody.status, otherBody.body]).toEqual([
      422,
      { error: 'idempotency_key_reused', message: expect.stringContaining('different request') },
    ]);
    const otherPath = await h.call(h.admin, 'POST', '/categories', {
      body: { name: 'Keyed' },
      headers: { 'Idempotency-Key': key },
    });
    // Another account: its own key space, so this one is new there.
    expect(otherPath.status).toBe(201);
    const samePathOtherQuery = await h.call(alice, 'POST', '/posts?x=1', {
      body: postBody('First use'),
      headers: { 'Idempotency-Key': key },
    });
    expect(samePathOtherQuery.status).toBe(422);
    expect(await postsTitled('Second use')).toBe(0);
  });

  it('keeps keys per account: the same key from two accounts creates two posts', async () => {
    const key = newKey();
    const mine = await createWithKey(key, postBody('Two owners'), alice);
    const theirs = await createWithKey(key, postBody('Two owners'), bob);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('runs a burst of one key once: one 201, the rest 409 with Retry-After or the replay', async () => {
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => createWithKey(key, postBody('Burst with one key'))),
    );
    const fresh = answers.filter((a) => a.status === 201 && !a.headers.get('idempotent-replayed'));
    expect(fresh).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 409) {
        expect(answer.body.error).toBe('idempotency_in_progress');
        expect(answer.headers.get('retry-after')).toBe('1');
      } else {
        expect([answer.status, answer.text]).toEqual([201, fresh[0]!.text]);
      }
    }
    expect(await postsTitled('Burst with one key')).toBe(1);
    // The retry the 409 asks for gets the answer.
    const retry = await createWithKey(key, postBody('Burst with one key'));
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
  });

  it('sends nothing of an answer whose transaction failed to commit, and the retry does the work', async () => {
    // The key cannot be recorded: the post written in the same transaction must go with it.
    await h.sql.unsafe(`
      create function refuse_keys() returns trigger language plpgsql as $$
        begin raise exception 'keys refused'; end $$;
      create trigger refuse_keys before insert on idempotency_keys
        for each row execute function refuse_keys()`);
    const key = newKey();
    let failed;
    try {
      failed = await createWithKey(key, postBody('Commit failed'));
    } finally {
      await h.sql.unsafe('drop trigger refuse_keys on idempotency_keys; drop function refuse_keys()');
    }
    expect([failed.status, failed.body.error, failed.headers.get('location')]).toEqual([
      500,
      'internal_error',
      null,
    ]);
    expect(failed.body.details.request_id).toBe(failed.headers.get('x-request-id'));
    expect(await postsTitled('Commit failed')).toBe(0);
    const retry = await createWithKey(key, postBody('Commit failed'));
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(await postsTitled('Commit failed')).toBe(1);
    await waitFor(() => createdEvents(retry.body.data.id).length > 0, {
      what: 'post.created',
      timeoutMs: 5000,
    });
    const ids = (h.probe.bodies() as EventEnvelope<any>[])
      .filter((e) => e.event === 'post.created' && e.data.title === 'Commit failed')
      .map((e) => e.data.id);
    expect(ids).toEqual([retry.body.data.id]);
  });

  it('takes a burst of distinct keys larger than the pool without waiting on itself', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createWithKey(newKey(), postBody(`Many keys ${i}`))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(201));
  });

  it('replays an error the service answered, and writes nothing for it', async () => {
    const key = newKey();
    const bad = { title: 'x'.repeat(400), content: 'too long a title', category_id: category };
    const first = await createWithKey(key, bad);
    expect(first.status).toBe(400);
    const again = await createWithKey(key, bad);
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([
      400,
      first.text,
      'true',
    ]);
    const missing = await h.call(alice, 'POST', '/posts/2000000000/like', {
      headers: { 'Idempotency-Key': key },
    });
    expect(missing.status).toBe(422);
  });

  it('rejects a malformed key with 400 naming the header, and ignores a key on other methods', async () => {
    for (const key of ['', 'x'.repeat(256), 'with space', 'tab\there', 'caf\u00e9']) {
      const res = await createWithKey(key, postBody('Bad key'));
      expect([key, res.status, res.body.details?.field]).toEqual([key, 400, 'Idempotency-Key']);
    }
    expect(await postsTitled('Bad key')).toBe(0);
    const longest = await createWithKey('~'.repeat(255), postBody('Longest key'));
    expect(longest.status).toBe(201);
    const post = longest.body.data.id;
    const key = newKey();
    for (let i = 0; i < 2; i++) {
      const read = await h.call(alice, 'GET', `/posts/${post}`, { headers: { 'Idempotency-Key': key } });
      expect([read.status, read.headers.get('idempotent-replayed')]).toEqual([200, null]);
    }
  });

  it('never stores the key, nor the answer in clear', async () => {
    const key = newKey();
    const created = await createWithKey(key, postBody('Sealed answer'));
    expect(created.status).toBe(201);
    const rows = await h.sql<{ row: string }[]>`select i::text as row from idempotency_keys i`;
    expect(rows.length).toBeGreaterThan(0);
    const dump = rows.map((r) => r.row).join('\n');
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(Buffer.from(key).toString('hex'));
    expect(dump).not.toContain(Buffer.from('Sealed answer').toString('hex'));
  });

  it('forgets a key after 24 hours, and the sweep deletes it', async () => {
    const key = newKey();
    const first = await createWithKey(key, postBody('Expired key'));
    expect(first.status).toBe(201);
    await h.sql`update idempotency_keys set created_at = now() - interval '24 hours 1 minute'`;
    const later = await createWithKey(key, postBody('Expired key'));
    expect([later.status, later.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(await postsTitled('Expired key')).toBe(2);
    await h.sql`update idempotency_keys set created_at = now() - interval '25 hours'`;
    const kept = Number((await h.sql<{ n: string }[]>`select count(*) as n from idempotency_keys`)[0]!.n);
    const sweeper = new IdempotencyKeySweeper(h.sql, createLogger({ service: 'test', level: 'silent' }));
    // One sweep takes at most 20 batches: a backlog goes over several sweeps.
    expect(kept).toBeGreaterThan(40);
    expect(await sweeper.sweep(2)).toBe(40);
    expect(await sweeper.sweep(2)).toBe(kept - 40);
    expect((await h.sql`select 1 from idempotency_keys`).length).toBe(0);
  });
});
