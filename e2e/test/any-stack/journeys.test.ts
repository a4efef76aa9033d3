import { randomBytes } from 'node:crypto';
import { waitFor } from '@community/test-harness';
import { generateKeyOnPage, logInOnPage, logOutOnPage, registerOnPage } from '../../src/client/account';
import { Browser } from '../../src/client/browser';
import { expectStatus, type Call } from '../../src/client/http';
import { expectEnvelope } from '../../src/contract';
import { about, createComment, createPost, deliveredWhen, profileWhen, subscribe } from '../../src/flows';
import { openTarget, type Target } from '../../src/target';
import { newIp, uniqueUsername } from '../../src/world';
import { tagged } from '../../src/tags';

let target: Target;
beforeAll(async () => {
  target = await openTarget('journeys');
}, 120_000);
afterAll(() => target?.close(), 60_000);

tagged(
  'journeys',
  'accounts',
  'webhooks',
)('a new member, from the account pages to a credited first post', () => {
  it('registers, logs in, generates a key, posts, gets a comment and a like, and every event reaches a webhook', async () => {
    const { world, receiver } = target;
    // Someone already listens for every public event, so the newcomer's registration is delivered too.
    const watcher = await world.member();
    await subscribe(world.as(watcher), receiver, 'journey');

    const account = {
      username: uniqueUsername('ada'),
      password: randomBytes(12).toString('base64url'),
      displayName: 'Ada ✨ لوڤلايس',
    };
    const browser = new Browser(target.baseUrl, newIp());
    await registerOnPage(browser, { ...account, email: `${account.username}@example.test` });
    await logOutOnPage(browser);
    await logInOnPage(browser, account);
    const { key } = await generateKeyOnPage(browser, 'first key', ['read', 'write']);
    const author: Call = (method, path, options = {}) =>
      world.call(method, path, { key, ip: browser.ip, ...options });

    const me = expectStatus(await author('GET', '/api/v1/users/me'), 200).body.data;
    expect(me).toMatchObject({ username: account.username, display_name: account.displayName });
    expect(me).toMatchObject({ role: 'member', plan: 'free' });

    const categoryId = await world.category();
    const created = await author('POST', '/api/v1/posts', {
      body: { title: 'Hello, world', content: 'My first post', category_id: categoryId, tags: ['Intro'] },
    });
    expectEnvelope(created);
    expect(created.status).toBe(201);
    const post = created.body.data;
    expect(created.headers.get('location')).toBe(`/api/v1/posts/${post.id}`);
    expect(post).toMatchObject({
      title: 'Hello, world',
      tags: ['intro'],
      is_pinned: false,
      is_locked: false,
    });
    expect(post.author).toMatchObject({ id: me.id });

    const reader = await world.member();
    const comment = await createComment(world.as(reader), post.id, 'Welcome!');
    const liked = expectStatus(await world.as(reader)('POST', `/api/v1/posts/${post.id}/like`), 200);
    expect(liked.body.data).toEqual({ post_id: post.id, liked: true, likes: 1 });
    // Liking twice changes nothing.
    const again = expectStatus(await world.as(reader)('POST', `/api/v1/posts/${post.id}/like`), 200);
    expect(again.body.data.likes).toBe(1);

    const detail = expectStatus(await author('GET', `/api/v1/posts/${post.id}`), 200).body.data;
    expect(detail).toMatchObject({ likes: 1, replies: 1 });

    // +2 for the post, +10 for the like received (DESIGN.md §4).
    const credited = await profileWhen(
      author,
      me.id,
      (u) => u.stats.posts === 1 && u.stats.likes_received === 1,
    );
    expect(credited.stats).toEqual({ posts: 1, comments: 0, likes_received: 1 });
    expect(credited.reputation).toBe(12);
    expect(credited.badges).toEqual([expect.objectContaining({ name: 'First Post', icon: '📝' })]);
    const readerProfile = await profileWhen(author, reader.id, (u) => u.stats.comments === 1);
    expect(readerProfile.reputation).toBe(1);

    const updated = await author('PUT', `/api/v1/posts/${post.id}`, { body: { title: 'Hello again' } });
    expect(expectStatus(updated, 200).body.data.title).toBe('Hello again');
    // Delivered before the delete: deleting a post redacts its events still waiting to go out (§20).
    await deliveredWhen(receiver, 'journey', (all) => about(all, 'post.updated', post.id).length > 0);
    const deleted = expectStatus(await author('DELETE', `/api/v1/posts/${post.id}`), 200);
    expect(deleted.body.data).toEqual({ id: post.id, deleted: true });
    expectStatus(await author('GET', `/api/v1/posts/${post.id}`), 404);

    const expected = [
      [
        'user.registered',
        me.id,
        { id: me.id, username: account.username, display_name: account.displayName },
      ],
      ['post.created', post.id, { id: post.id, title: 'Hello, world', author_id: me.id }],
      [
        'comment.created',
        comment.id,
        { id: comment.id, post_id: post.id, author_id: reader.id, parent_id: null },
      ],
      ['post.updated', post.id, { id: post.id, title: 'Hello again', author_id: me.id, changed: ['title'] }],
      ['post.deleted', post.id, { id: post.id, author_id: me.id }],
    ] as const;
    await deliveredWhen(receiver, 'journey', (all) =>
      expected.every(([event, id]) => about(all, event, id).length > 0),
    );
    const delivered = receiver.acknowledged('journey');
    for (const [event, id, data] of expected) {
      const deliveries = about(delivered, event, id);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]!.data).toEqual(data);
      expect(deliveries[0]!.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    }
  });
});

/**
 * A member made moderator, and calls with their key: a key with the moderate scope comes from the
 * account pages, where the role counts.
 */
async function newModerator() {
  const { world } = target;
  const moderator = await world.member();
  await world.setRole(moderator.id, 'moderator');
  const { key } = await generateKeyOnPage(moderator.browser, 'moderation', ['read', 'write', 'moderate']);
  const asModerator: Call = (method, path, options = {}) =>
    world.call(method, path, { key, ip: moderator.ip, ...options });
  return { moderator, asModerator };
}

tagged('journeys', 'moderation')('moderation', () => {
  it('lets a moderator pin and lock a post, and a locked post refuses every new comment', async () => {
    const { world } = target;
    const categoryId = await world.category();
    const author = await world.member();
    const member = await world.member();
    const { asModerator } = await newModerator();

    const post = await createPost(world.as(author), categoryId);
    const byMember = await world.as(member)('PUT', `/api/v1/posts/${post.id}`, { body: { is_pinned: true } });
    expect(byMember.status).toBe(403);
    const byAuthor = await world.as(author)('PUT', `/api/v1/posts/${post.id}`, { body: { is_locked: true } });
    expect(byAuthor.status).toBe(403);

    const moderated = await asModerator('PUT', `/api/v1/posts/${post.id}`, {
      body: { is_pinned: true, is_locked: true },
    });
    expect(expectStatus(moderated, 200).body.data).toMatchObject({ is_pinned: true, is_locked: true });
    const read = expectStatus(await world.as(member)('GET', `/api/v1/posts/${post.id}`), 200).body.data;
    expect(read).toMatchObject({ is_pinned: true, is_locked: true });

    for (const as of [world.as(member), world.as(author), asModerator]) {
      const refused = await as('POST', `/api/v1/posts/${post.id}/comments`, { body: { content: 'hi' } });
      expect([refused.status, refused.body?.error]).toEqual([403, 'post_locked']);
    }
    // The author may still edit the post itself.
    expectStatus(
      await world.as(author)('PUT', `/api/v1/posts/${post.id}`, { body: { content: 'edited' } }),
      200,
    );

    expectStatus(await asModerator('PUT', `/api/v1/posts/${post.id}`, { body: { is_locked: false } }), 200);
    const comment = await createComment(world.as(member), post.id, 'now open');
    // Moderators may remove other people's comments.
    expectStatus(await asModerator('DELETE', `/api/v1/comments/${comment.id}`), 200);
    expectStatus(await world.as(member)('GET', `/api/v1/comments/${comment.id}`), 404);
  });
});

tagged('journeys', 'moderation')('flags', () => {
  it('hides what three members flag, queues it for a moderator, logs the decision, the delete and a suspension', async () => {
    const { world } = target;
    const categoryId = await world.category();
    const author = await world.member();
    const bystander = await world.member();
    const { moderator, asModerator } = await newModerator();

    const post = await createPost(world.as(author), categoryId);
    for (let i = 0; i < 3; i++) {
      const flagger = await world.member();
      const flagged = await world.as(flagger)('POST', `/api/v1/posts/${post.id}/flags`, {
        body: { reason: 'spam' },
      });
      expect(expectStatus(flagged, 201).body.data).toMatchObject({ target_id: post.id, status: 'open' });
    }
    expectStatus(await world.as(bystander)('GET', `/api/v1/posts/${post.id}`), 404);
    const seen = expectStatus(await world.as(author)('GET', `/api/v1/posts/${post.id}`), 200).body.data;
    expect(seen.is_hidden).toBe(true);

    const byMember = await world.as(bystander)('GET', '/api/v1/flags');
    expect([byMember.status, byMember.body?.error]).toEqual([403, 'insufficient_scope']);
    const queue = expectStatus(await asModerator('GET', '/api/v1/flags?target_type=post&limit=100'), 200);
    const mine = (queue.body.data as { id: number; target_id: number }[]).filter(
      (f) => f.target_id === post.id,
    );
    expect(mine).toHaveLength(3);
    const decided = await asModerator('PUT', `/api/v1/flags/${mine[0]!.id}`, {
      body: { status: 'resolved', action: 'delete', reason: 'spam ring' },
    });
    expect(expectStatus(decided, 200).body.data.status).toBe('resolved');
    expectStatus(await world.as(author)('GET', `/api/v1/posts/${post.id}`), 404);

    // The author is suspended: their key is refused within 5 s, and the log says who did it and why.
    const suspended = await asModerator('PUT', `/api/v1/users/${author.id}/suspension`, {
      body: { reason: 'spam ring' },
    });
    expectStatus(suspended, 200);
    const refused = await waitFor(
      async () => {
        const res = await world.as(author)('GET', '/api/v1/users/me');
        return res.status === 403 ? res : undefined;
      },
      { what: "the author's key refused", timeoutMs: 5_000, intervalMs: 100 },
    );
    expect(refused.body).toMatchObject({
      error: 'account_suspended',
      details: { until: null, reason: 'spam ring' },
    });
    expectStatus(await asModerator('DELETE', `/api/v1/users/${author.id}/suspension`), 200);

    type Entry = {
      action: string;
      actor_id: number | null;
      reason: string | null;
      target_type: string;
      target_id: number;
    };
    const log = await waitFor(
      async () => {
        const res = expectStatus(await asModerator('GET', '/api/v1/moderation/actions?limit=100'), 200);
        const entries = (res.body.data as Entry[]).filter(
          (a) =>
            (a.target_type === 'post' && a.target_id === post.id) ||
            (a.target_type === 'user' && a.target_id === author.id),
        );
        return entries.length >= 5 ? entries : undefined;
      },
      { what: 'the moderation log', timeoutMs: 15_000 },
    );
    expect(log.map((a) => [a.action, a.target_type, a.actor_id, a.reason])).toEqual([
      ['unsuspend', 'user', moderator.id, null],
      ['suspend', 'user', moderator.id, 'spam ring'],
      ['delete', 'post', moderator.id, 'spam ring'],
      ['resolve_flags', 'post', moderator.id, 'spam ring'],
      ['hide', 'post', null, '3 open flags: spam'],
    ]);
  });
});

tagged('journeys', 'accounts')('key revocation', () => {
  it('stops a revoked key at once, through the API and through the account page, and spares the others', async () => {
    const { world } = target;
    const member = await world.member();
    const spare = await generateKeyOnPage(member.browser, 'spare', ['read']);
    const doomed = await generateKeyOnPage(member.browser, 'doomed', ['read']);
    const use = (key: string) => world.call('GET', '/api/v1/users/me', { key, ip: member.ip });
    expectStatus(await use(doomed.key), 200);

    const keys = expectStatus(await world.as(member)('GET', '/api/v1/keys'), 200).body.data as any[];
    const doomedId = keys.find((k) => k.name === 'doomed').id;
    expectStatus(await world.as(member)('DELETE', `/api/v1/keys/${doomedId}`), 200);
    // The gateway's key cache drops the key when the revocation event arrives (milliseconds).
    const refused = await waitFor(
      async () => ((await use(doomed.key)).status === 401 ? use(doomed.key) : null),
      {
        timeoutMs: 5_000,
        what: 'the revoked key to be refused',
      },
    );
    expect([refused.status, refused.body?.error]).toEqual([401, 'unauthorized']);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');

    // Revoking on the account page: the row's form posts to …/keys/<id>/revoke with the page's token.
    const spareId = keys.find((k) => k.name === 'spare').id;
    const page = await member.browser.get('/account/settings/api');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.html)![1]!;
    const revoked = await member.browser.postForm(`/account/settings/api/keys/${spareId}/revoke`, [
      ['_csrf', csrf],
    ]);
    expect([revoked.status, revoked.location]).toEqual([303, '/account/settings/api?revoked=1']);
    await waitFor(async () => (await use(spare.key)).status === 401, {
      timeoutMs: 5_000,
      what: 'the key revoked on the page to be refused',
    });

    expectStatus(await world.as(member)('GET', '/api/v1/users/me'), 200);
  });
});
