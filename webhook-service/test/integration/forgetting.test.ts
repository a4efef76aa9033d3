import { eventLogEntrySchema, timeListEnvelope } from '@community/contracts';
import { waitFor } from '@community/test-harness';
import { messageIdOf } from '../../src/domain/message-id';
import { receiversClosedAfterAll } from '../support/receiver';
import { owner, startWebhookService, stranger, type WebhooksHarness } from '../support/webhooks-harness';

// DESIGN.md §20: the events log and the delivery logs forget an erased member, a deleted post or
// comment, and hidden content — the events keep id, type and shape, text emptied, `redacted: true`.

let h: WebhooksHarness;
const receiver = receiversClosedAfterAll();
beforeAll(async () => {
  h = await startWebhookService('forgetting');
});
afterAll(() => h.stop());

const logged = (eventId: string) =>
  waitFor(async () => (await h.sql`select 1 from events where event_id = ${eventId}`).length === 1, {
    what: `${eventId} logged`,
  });

async function entry(eventId: string) {
  const res = await h.call(
    stranger,
    'GET',
    '/events?limit=100&types=post.created,post.updated,user.registered,comment.created',
  );
  const entries = timeListEnvelope(eventLogEntrySchema).parse(res.body).data;
  return entries.find((e) => e.id === messageIdOf(eventId));
}

const storedBodies = async (eventId: string) =>
  (await h.sql<{ body: string }[]>`select body from deliveries where event_id = ${eventId}`).map(
    (row) => JSON.parse(row.body) as { data: Record<string, unknown> },
  );

async function subscribe(url: string, events: string[], as = owner) {
  const res = await h.call(as, 'POST', '/webhooks', { body: { url, events } });
  expect(res.status).toBe(201);
  return res.body.data as { id: number };
}

describe('the events log forgets', () => {
  it('a deleted post: its created and updated events keep id, type and shape, the title emptied', async () => {
    const r = await receiver(() => ({ status: 500 }));
    await subscribe(r.url, ['post.created', 'post.updated']);
    const created = await h.publish('post.created', { id: 7001, title: 'Secret plans', author_id: 9 });
    const updated = await h.publish('post.updated', {
      id: 7001,
      title: 'Secret plans v2',
      author_id: 9,
      changed: ['title'],
    });
    await logged(created.id);
    await logged(updated.id);
    expect((await entry(created.id))?.data).toEqual({ id: 7001, title: 'Secret plans', author_id: 9 });

    const gone = await h.publish('post.deleted', { id: 7001, author_id: 9 });
    await logged(gone.id);
    await waitFor(async () => (await entry(created.id))?.data.redacted === true, { what: 'the redaction' });
    expect((await entry(created.id))?.data).toEqual({ id: 7001, title: '', author_id: 9, redacted: true });
    expect((await entry(updated.id))?.data).toEqual({
      id: 7001,
      title: '',
      author_id: 9,
      changed: ['title'],
      redacted: true,
    });
    // The delivery log (and with it every retry) holds the redacted form too.
    for (const body of [...(await storedBodies(created.id)), ...(await storedBodies(updated.id))])
      expect(body.data).toMatchObject({ title: '', redacted: true });
  });

  it('a post hidden by moderation, and a deleted or hidden comment', async () => {
    const post = await h.publish('post.created', { id: 7002, title: 'Buy cheap pills', author_id: 9 });
    const comment = await h.publish('comment.created', {
      id: 8001,
      post_id: 1,
      author_id: 9,
      parent_id: null,
    });
    const other = await h.publish('comment.created', { id: 8002, post_id: 1, author_id: 9, parent_id: null });
    for (const e of [post, comment, other]) await logged(e.id);
    await h.publish('moderation.action', {
      actor_id: null,
      action: 'hide',
      target_type: 'post',
      target_id: 7002,
      reason: '3 open flags: spam',
    });
    await h.publish('comment.deleted', { id: 8001, post_id: 1, author_id: 9 });
    await h.publish('moderation.action', {
      actor_id: 3,
      action: 'hide',
      target_type: 'comment',
      target_id: 8002,
      reason: 'abuse',
    });
    await waitFor(async () => (await entry(other.id))?.data.redacted === true, { what: 'the redactions' });
    expect((await entry(post.id))?.data).toEqual({ id: 7002, title: '', author_id: 9, redacted: true });
    expect((await entry(comment.id))?.data).toMatchObject({ id: 8001, redacted: true });
  });

  it('an erased member: profile fields deleted-<id>, their endpoints and deliveries gone, user.deleted sent', async () => {
    const mine = await receiver();
    const theirs = await receiver();
    const endpoint = await subscribe(mine.url, ['user.registered', 'user.deleted'], owner);
    await subscribe(theirs.url, ['user.registered', 'user.deleted'], stranger);
    const registered = await h.publish('user.registered', {
      id: owner.userId,
      username: 'ada',
      display_name: 'Ada Lovelace',
    });
    await waitFor(() => mine.received.length === 1 && theirs.received.length === 1, {
      what: 'both deliveries',
    });

    const deleted = await h.publish('user.deleted', { id: owner.userId });
    await waitFor(() => theirs.received.length === 2, { what: 'user.deleted to the other endpoint' });
    expect(JSON.parse(theirs.received[1]!.body)).toMatchObject({
      event: 'user.deleted',
      data: { id: owner.userId },
    });
    await logged(deleted.id);
    const name = `deleted-${owner.userId}`;
    expect((await entry(registered.id))?.data).toEqual({
      id: owner.userId,
      username: name,
      display_name: name,
      redacted: true,
    });
    expect(await h.sql`select 1 from endpoints where id = ${endpoint.id}`).toHaveLength(0);
    expect(await h.sql`select 1 from deliveries where endpoint_id = ${endpoint.id}`).toHaveLength(0);
    expect(mine.received).toHaveLength(1);
  });

  it('replays send the redacted form under the original webhook-id', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const created = await h.publish('post.created', { id: 7003, title: 'Soon gone', author_id: 4 });
    await logged(created.id);
    const gone = await h.publish('post.deleted', { id: 7003, author_id: 4 });
    await logged(gone.id);
    await waitFor(async () => (await entry(created.id))?.data.redacted === true, { what: 'the redaction' });

    const r = await receiver();
    const endpoint = await subscribe(r.url, ['post.created'], stranger);
    const res = await h.call(stranger, 'POST', `/webhooks/${endpoint.id}/replay`, {
      body: { since, events: ['post.created'] },
    });
    expect(res.status).toBe(202);
    await waitFor(() => r.received.some((x) => x.headers['webhook-id'] === messageIdOf(created.id)), {
      what: 'the replayed delivery',
    });
    const sent = r.received.find((x) => x.headers['webhook-id'] === messageIdOf(created.id))!;
    expect(JSON.parse(sent.body).data).toEqual({ id: 7003, title: '', author_id: 4, redacted: true });
  });

  it('applies a redelivered deletion once, and leaves other subjects alone', async () => {
    const kept = await h.publish('post.created', { id: 7004, title: 'Still here', author_id: 4 });
    await logged(kept.id);
    const gone = await h.publish('post.deleted', { id: 7005, author_id: 4 });
    await logged(gone.id);
    await h.republish(gone);
    expect((await entry(kept.id))?.data).toEqual({ id: 7004, title: 'Still here', author_id: 4 });
  });
});
