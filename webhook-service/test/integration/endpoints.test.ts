import { createdWebhookSchema, listEnvelope, singleEnvelope, webhookSchema } from '@community/contracts';
import { actor } from '@community/test-harness';
import { owner, startWebhookService, stranger, type WebhooksHarness } from '../support/webhooks-harness';

let h: WebhooksHarness;
let strict: WebhooksHarness;
beforeAll(async () => {
  h = await startWebhookService('endpoints');
  strict = await startWebhookService('endpointsstrict', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
});
afterAll(async () => {
  await h.stop();
  await strict.stop();
});

const create = (body: Record<string, unknown>, as = owner, harness = h) =>
  harness.call(as, 'POST', '/webhooks', { body });

describe('webhook endpoints API', () => {
  it('creates an endpoint and shows its whsec_ secret once', async () => {
    const res = await create({
      url: 'http://127.0.0.1:9/hook',
      events: ['post.created', 'post.created'],
      description: 'CI',
    });
    expect(res.status).toBe(201);
    const created = singleEnvelope(createdWebhookSchema).parse(res.body).data;
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created).toMatchObject({
      events: ['post.created'],
      enabled: true,
      disabled_reason: null,
      description: 'CI',
    });
    expect(res.headers.get('location')).toBe(`/api/v1/webhooks/${created.id}`);
    const read = await h.call(owner, 'GET', `/webhooks/${created.id}`);
    expect(singleEnvelope(webhookSchema).parse(read.body).data.id).toBe(created.id);
    expect(read.text).not.toContain(created.secret);
    const list = await h.call(owner, 'GET', '/webhooks');
    listEnvelope(webhookSchema).parse(list.body);
    expect(list.text).not.toContain('whsec_');
  });

  it('answers a body that is not valid UTF-8 with 400 invalid_json', async () => {
    const res = await h.call(owner, 'POST', '/webhooks', {
      raw: Buffer.concat([
        Buffer.from('{"url":"http://127.0.0.1:9/hook","events":["post.created"],"description":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_json', message: 'the request body is not valid UTF-8' });
  });

  it("hides another user's endpoint as 404 on every route", async () => {
    const { id } = (await create({ url: 'http://127.0.0.1:9/a', events: ['post.deleted'] })).body.data;
    for (const [method, path] of [
      ['GET', `/webhooks/${id}`],
      ['PUT', `/webhooks/${id}`],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/rotate-secret`],
      ['GET', `/webhooks/${id}/deliveries`],
    ] as const) {
      const res = await h.call(
        stranger,
        method,
        path,
        method === 'PUT' ? { body: { description: 'x' } } : {},
      );
      expect(res.status).toBe(404);
    }
    expect((await h.call(stranger, 'GET', '/webhooks')).body.data).toEqual([]);
  });

  it.each([
    [{ url: 'ftp://example.com', events: ['post.created'] }, 'url', 'invalid_value'],
    [{ url: 'http://127.0.0.1/x', events: [] }, 'events', 'too_small'],
    [{ url: 'http://127.0.0.1/x', events: ['post.liked'] }, 'events.0', 'invalid_value'],
    [{ url: 'http://127.0.0.1/x', events: ['user.updated'] }, 'events.0', 'invalid_value'],
    [{ url: 'http://127.0.0.1/x', events: ['nope'] }, 'events.0', 'invalid_value'],
    [{ events: ['post.created'] }, 'url', 'required'],
    [{ url: 'http://127.0.0.1/x', events: ['post.created'], secret: 'mine' }, 'secret', 'unrecognized_key'],
  ])('validates case %#', async (body, field, code) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field, code });
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]:8080/hook',
    'http://localhost:8080/hook',
  ])('refuses %s when private networks are not allowed', async (url) => {
    const res = await create({ url, events: ['post.created'] }, owner, strict);
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'url', code: 'invalid_value' });
  });

  it('updates url, events, description and enabled; rejects an empty update', async () => {
    const { id } = (await create({ url: 'http://127.0.0.1:9/u', events: ['post.created'] })).body.data;
    const res = await h.call(owner, 'PUT', `/webhooks/${id}`, {
      body: {
        url: 'http://127.0.0.1:9/v',
        events: ['comment.created', 'user.registered'],
        description: 'new',
        enabled: false,
      },
    });
    expect(res.body.data).toMatchObject({
      url: 'http://127.0.0.1:9/v',
      events: ['comment.created', 'user.registered'],
      description: 'new',
      enabled: false,
    });
    expect((await h.call(owner, 'PUT', `/webhooks/${id}`, { body: {} })).status).toBe(400);
    // A public address is accepted without being contacted; moving it to a private one is not.
    const publicOne = (
      await create({ url: 'http://93.184.216.34/hook', events: ['post.created'] }, owner, strict)
    ).body.data;
    const moved = await strict.call(owner, 'PUT', `/webhooks/${publicOne.id}`, {
      body: { url: 'http://10.0.0.1/hook' },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.details).toMatchObject({ field: 'url', code: 'invalid_value' });
  });

  it('rotates the secret and says until when the old one keeps signing', async () => {
    const created = (await create({ url: 'http://127.0.0.1:9/r', events: ['post.created'] })).body.data;
    const res = await h.call(owner, 'POST', `/webhooks/${created.id}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.body.data.secret).toMatch(/^whsec_/);
    expect(res.body.data.secret).not.toBe(created.secret);
    const until = Date.parse(res.body.data.previous_secret_expires_at);
    expect(Math.abs(until - (Date.now() + 24 * 3600 * 1000))).toBeLessThan(5_000);
  });

  it('deletes an endpoint: 404 afterwards', async () => {
    const { id } = (await create({ url: 'http://127.0.0.1:9/d', events: ['post.created'] })).body.data;
    expect((await h.call(owner, 'DELETE', `/webhooks/${id}`)).body).toEqual({
      success: true,
      data: { id, deleted: true },
    });
    expect((await h.call(owner, 'GET', `/webhooks/${id}`)).status).toBe(404);
  });

  it('allows at most 20 endpoints per user', async () => {
    const user = actor(777, 'member', ['webhooks']);
    for (let i = 0; i < 20; i++)
      expect((await create({ url: `http://127.0.0.1:9/${i}`, events: ['post.created'] }, user)).status).toBe(
        201,
      );
    const refused = await create({ url: 'http://127.0.0.1:9/21', events: ['post.created'] }, user);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('conflict');
  });

  it('creates exactly 20 of 25 endpoints asked for at once', async () => {
    const user = actor(778, 'member', ['webhooks']);
    const statuses = await Promise.all(
      Array.from(
        { length: 25 },
        async (_, i) =>
          (await create({ url: `http://127.0.0.1:9/burst/${i}`, events: ['post.created'] }, user)).status,
      ),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
  });

  it('needs the webhooks scope', async () => {
    const res = await h.call(actor(9, 'member', ['read', 'write']), 'GET', '/webhooks');
    expect(res.body).toMatchObject({ error: 'insufficient_scope', details: { required_scope: 'webhooks' } });
  });
});
