import { startTcpProxy, waitFor } from '@community/test-harness';
import { verifyWebhook, WebhookVerificationError, type Schema } from '@community/sdk';
import { clientOf, stackOfFile, UNLIMITED } from './support/stack';

// The notification stream and webhook verification, against the real stack.
const target = stackOfFile('sdk_live');

async function writer() {
  const { world } = target();
  const member = await world.member({ plan: UNLIMITED });
  return { member, api: clientOf(target(), member), categoryId: await world.category() };
}

describe('streamNotifications', () => {
  it('reconnects after its connection is cut, with Last-Event-ID: nothing missed, nothing twice', async () => {
    const author = await writer();
    const replier = await writer();
    const gateway = new URL(target().baseUrl);
    const link = await startTcpProxy({ host: gateway.hostname, port: Number(gateway.port) });
    const controller = new AbortController();
    try {
      const opens: (string | null)[] = [];
      const viaLink = clientOf({ ...target(), baseUrl: link.url(gateway.origin) }, author.member, {
        maxRetries: 5,
        fetch: (input, init) => {
          opens.push(new Headers(init?.headers).get('last-event-id'));
          return fetch(input, init);
        },
      });
      const post = await author.api.createPost({
        body: { title: 'Reply here', content: 'x', category_id: author.categoryId },
      });
      const reply = (content: string) =>
        replier.api.createComment({ path: { id: post.data.id }, body: { content } });

      const received: Schema<'Notification'>[] = [];
      const reading = (async () => {
        for await (const item of viaLink.streamNotifications({ signal: controller.signal }))
          received.push(item);
      })();
      // The stream is open once the first reply reaches it (it may be sent before the stream opened:
      // then it is not replayed, and the next one shows the stream open).
      await waitFor(async () => (await reply('before the cut'), received.length > 0), {
        timeoutMs: 10_000,
        intervalMs: 500,
        what: 'the stream to deliver',
      });

      await link.cut();
      const missed = [await reply('while cut 1'), await reply('while cut 2')];
      link.restore();
      const after = await reply('after the cut');

      const ids = [...missed, after].map((comment) => comment.data.id);
      await waitFor(() => ids.every((id) => received.some((item) => item.subject.id === id)), {
        timeoutMs: 15_000,
        what: 'the missed replies',
      });
      const notificationIds = received.map((item) => item.id);
      expect(new Set(notificationIds).size).toBe(notificationIds.length);
      // Reopened after the cut, naming the last event it had seen.
      expect(opens[0]).toBeNull();
      expect(opens.length).toBeGreaterThan(1);
      expect(opens.slice(1).every((id) => notificationIds.map(String).includes(id!))).toBe(true);
      for (const id of ids) expect(received.filter((item) => item.subject.id === id)).toHaveLength(1);
      controller.abort();
      await reading;
    } finally {
      controller.abort();
      await link.stop();
    }
  }, 60_000);
});

describe('verifyWebhook', () => {
  it('returns the event of a real delivery, and refuses a tampered body', async () => {
    const { api, categoryId } = await writer();
    const { receiver } = target();
    const endpoint = `sdk${Date.now().toString(36)}`;
    const hook = await api.createWebhook({ body: { url: receiver.url(endpoint), events: ['post.created'] } });
    const post = await api.createPost({ body: { title: 'Signed', content: 'x', category_id: categoryId } });

    const delivery = await waitFor(() => receiver.received.find((r) => r.endpoint === endpoint), {
      timeoutMs: 15_000,
      what: 'the delivery',
    });
    const event = verifyWebhook(hook.data.secret, delivery.headers, delivery.rawBody);
    expect(event).toMatchObject({ event: 'post.created', data: { id: post.data.id, title: 'Signed' } });
    // A Headers object and a byte body work the same.
    const bytes = new TextEncoder().encode(delivery.rawBody);
    expect(verifyWebhook(hook.data.secret, new Headers(delivery.headers), bytes)).toEqual(event);

    const tampered = delivery.rawBody.replace('Signed', 'Forged');
    expect(() => verifyWebhook(hook.data.secret, delivery.headers, tampered)).toThrow(
      WebhookVerificationError,
    );
    expect(() =>
      verifyWebhook(hook.data.secret, { ...delivery.headers, 'webhook-id': 'msg_other' }, delivery.rawBody),
    ).toThrow(WebhookVerificationError);
  });

  it('verifies the ping of testWebhook', async () => {
    const { api } = await writer();
    const { receiver } = target();
    const endpoint = `sdkping${Date.now().toString(36)}`;
    const hook = await api.createWebhook({ body: { url: receiver.url(endpoint), events: ['post.created'] } });
    const attempt = await api.testWebhook({ path: { id: hook.data.id } });
    expect(attempt.data.response_status).toBe(200);
    const delivery = receiver.received.find((r) => r.endpoint === endpoint)!;
    const ping = verifyWebhook(hook.data.secret, delivery.headers, delivery.rawBody);
    expect(ping).toEqual({
      event: 'ping',
      timestamp: expect.any(String),
      data: { webhook_id: hook.data.id },
    });
  });
});
