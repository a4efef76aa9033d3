import { waitFor } from '@community/test-harness';
import { expectStatus } from '../../src/client/http';
import { about, createPost, deliveredWhen, profileWhen, subscribe } from '../../src/flows';
import { openOwnedTarget, targetOfFile } from '../../src/target';

// DESIGN.md §20: an erasure goes on in every service through events, and one that is down meanwhile
// catches up when it is back. Export: one streamed document, no ETag, no secret.

const target = targetOfFile(() => openOwnedTarget('erasure'));

describe('erasure across the three services', () => {
  it('completes with webhook-service stopped during it: keys end, profile and counts follow, user.deleted goes out after', async () => {
    const { world, owned, receiver } = target();
    const watcher = await world.member();
    const watcherAs = world.as(watcher);
    await subscribe(watcherAs, receiver, 'watcher', ['user.registered', 'user.deleted', 'post.created']);
    const { member, as, categoryId } = await world.writer();
    await subscribe(as, receiver, 'own', ['user.deleted']);
    const kept = await createPost(as, categoryId, { title: 'Kept under a deleted name' });
    const liked = await createPost(watcherAs, categoryId);
    expectStatus(await as('POST', `/api/v1/posts/${liked.id}/like`), 200);
    await profileWhen(watcherAs, watcher.id, (u) => u.stats.likes_received === 1);

    await owned.services.webhooks.kill();
    try {
      const erased = await as('DELETE', '/api/v1/users/me', { body: { password: member.password } });
      expect(expectStatus(erased, 202).body.data).toEqual({ status: 'erasing' });
      // The key stops working within 5 s.
      await waitFor(async () => (await as('GET', '/api/v1/posts')).status === 401, {
        timeoutMs: 5_000,
        intervalMs: 200,
        what: 'the erased key refused',
      });
      const name = `deleted-${member.id}`;
      await profileWhen(watcherAs, member.id, (u) => u.username === name && u.display_name === name);
      await waitFor(
        async () => (await watcherAs('GET', `/api/v1/posts/${kept.id}`)).body.data.author.username === name,
        { timeoutMs: 20_000, intervalMs: 200, what: 'the kept post anonymised' },
      );
      // The like the member gave left the count and the author's reputation.
      await profileWhen(watcherAs, watcher.id, (u) => u.stats.likes_received === 0);
      expect(expectStatus(await watcherAs('GET', `/api/v1/posts/${liked.id}`), 200).body.data.likes).toBe(0);
    } finally {
      await owned.services.webhooks.start();
    }

    // The event waited for webhook-service, which completes the erasure within 60 s of being back:
    // the member's endpoints gone and the stored events redacted (one transaction), user.deleted
    // delivered to the others.
    const deadline = Date.now() + 60_000;
    const left = () => Math.max(1, deadline - Date.now());
    const registered = await waitFor(
      async () => {
        const log = expectStatus(
          await watcherAs('GET', '/api/v1/events?types=user.registered&limit=100'),
          200,
        );
        const event = log.body.data.find((e: any) => e.data.id === member.id);
        return event?.data.redacted ? event : null;
      },
      { timeoutMs: left(), intervalMs: 200, what: 'the stored user.registered redacted' },
    );
    expect(registered.data).toEqual({
      id: member.id,
      username: `deleted-${member.id}`,
      display_name: `deleted-${member.id}`,
      redacted: true,
    });
    await deliveredWhen(receiver, 'watcher', (ds) => about(ds, 'user.deleted', member.id).length > 0, left());
    // Never to the member's own endpoint, which went with the account.
    expect(about(receiver.acknowledged('own'), 'user.deleted', member.id)).toEqual([]);
  }, 120_000);
});

describe('GET /api/v1/users/me/export', () => {
  it('streams everything about the caller as one document: no ETag, no secret', async () => {
    const { world, receiver } = target();
    const { member, as, categoryId } = await world.writer();
    const hook = await subscribe(as, receiver, 'exported', ['post.created']);
    const post = await createPost(as, categoryId, { title: 'Exported' });
    const res = expectStatus(await as('GET', '/api/v1/users/me/export'), 200);
    expect(res.headers.get('etag')).toBeNull();
    const data = res.body.data;
    expect(data.profile.id).toBe(member.id);
    expect(data.keys.map((k: any) => k.id)).toContain(member.keyId);
    expect(data.posts.map((p: any) => p.id)).toEqual([post.id]);
    expect(data.webhooks.map((w: any) => w.id)).toEqual([hook.id]);
    const text = JSON.stringify(data);
    expect(text).not.toContain(hook.secret);
    expect(text).not.toContain(member.key);
  }, 60_000);
});
