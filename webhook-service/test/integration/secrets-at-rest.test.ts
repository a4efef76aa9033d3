import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '@community/test-harness';
import { decodeSecretsKey, SecretBox } from '../../src/domain/secret-box';
import { sealStoredSecrets, WrongSecretsKeyError } from '../../src/domain/secrets-at-rest';
import { startReceiver, type Received } from '../support/receiver';
import { owner, startWebhookService, type WebhooksHarness } from '../support/webhooks-harness';

let h: WebhooksHarness;
beforeAll(async () => {
  h = await startWebhookService('secrets_at_rest');
});
afterAll(() => h.stop());

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** Everything the endpoints table holds, as text: what a stolen backup would show. */
const stored = async (id: number) => JSON.stringify(await h.sql`select * from endpoints where id = ${id}`);

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;

async function deliveredTo(count: number) {
  await waitFor(async () => receiver.received.length >= count, { what: `${count} deliveries` });
  return receiver.received[count - 1]!;
}

describe('webhook signing secrets at rest', () => {
  it('stores the secret sealed (AES-256-GCM), and signs with what it seals', async () => {
    const res = await h.call(owner, 'POST', '/webhooks', {
      body: { url: receiver.url, events: ['post.created'] },
    });
    const { id, secret } = res.body.data as { id: number; secret: string };
    const row = await stored(id);
    expect(row).not.toContain(secret);
    expect(row).not.toContain(secret.slice('whsec_'.length));
    expect(row).not.toContain('whsec_');
    expect(row).toMatch(/"secret":"aes256gcm:v1:[A-Za-z0-9+/=]+"/);

    await h.publish('post.created', { id: 1, title: 'Sealed', author_id: 1 });
    expect(verify(secret, await deliveredTo(1))).toMatchObject({ event: 'post.created' });
  });

  it('keeps both secrets of a rotation sealed, and signs with both', async () => {
    const res = await h.call(owner, 'POST', '/webhooks', {
      body: { url: receiver.url, events: ['post.updated'] },
    });
    const { id, secret: old } = res.body.data as { id: number; secret: string };
    const rotated = (await h.call(owner, 'POST', `/webhooks/${id}/rotate-secret`)).body.data as {
      secret: string;
    };
    const row = await stored(id);
    for (const secret of [old, rotated.secret]) expect(row).not.toContain(secret.slice('whsec_'.length));
    expect(row).toMatch(/"previousSecret":"aes256gcm:v1:/);

    const before = receiver.received.length;
    await h.publish('post.updated', { id: 1, title: 'Both', author_id: 1, changed: ['title'] });
    const got = await deliveredTo(before + 1);
    expect(verify(old, got)).toBeTruthy();
    expect(verify(rotated.secret, got)).toBeTruthy();
  });

  it('seals secrets stored in plain text before it starts sending, and still signs with them', async () => {
    const legacy = `whsec_${randomBytes(32).toString('base64')}`;
    const previous = `whsec_${randomBytes(32).toString('base64')}`;
    const [row] = await h.sql<{ id: number }[]>`
      insert into endpoints (user_id, url, events, secret, previous_secret, previous_secret_expires_at)
      values (${owner.userId}, ${receiver.url}, '{comment.created}', ${legacy}, ${previous}, now() + interval '1 hour')
      returning id`;
    await h.restart();
    const now = await stored(row!.id);
    expect(now).not.toContain('whsec_');
    expect(now).toMatch(/"secret":"aes256gcm:v1:.*"previousSecret":"aes256gcm:v1:/);

    const before = receiver.received.length;
    await h.publish('comment.created', { id: 3, post_id: 1, author_id: 1, parent_id: null });
    const got = await deliveredTo(before + 1);
    expect(verify(legacy, got)).toBeTruthy();
    expect(verify(previous, got)).toBeTruthy();
  });

  it('refuses to start with a key that does not open the stored secrets', async () => {
    const other = new SecretBox(randomBytes(32));
    await expect(sealStoredSecrets(h.sql, other)).rejects.toThrow(WrongSecretsKeyError);
    const right = new SecretBox(decodeSecretsKey(h.config.SECRETS_KEY)!);
    await expect(sealStoredSecrets(h.sql, right)).resolves.toBe(0);
  });
});

describe('SECRETS_KEY', () => {
  it.each([
    { what: '64 hex digits', text: randomBytes(32).toString('hex'), ok: true },
    { what: 'base64 of 32 bytes', text: randomBytes(32).toString('base64'), ok: true },
    { what: 'base64url of 32 bytes', text: randomBytes(32).toString('base64url'), ok: true },
    { what: '48 hex digits (openssl rand -hex 24)', text: randomBytes(24).toString('hex'), ok: false },
    { what: 'base64 of 31 bytes', text: randomBytes(31).toString('base64'), ok: false },
    { what: 'the .env.example placeholder', text: 'change-me-secrets-key', ok: false },
  ])('takes $what as a key: $ok', ({ text, ok }) => {
    expect(decodeSecretsKey(text)?.length === 32).toBe(ok);
  });

  it('opens only what it sealed, and notices a changed byte', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
    expect(box.open(sealed)).toBe('whsec_abc');
    const raw = Buffer.from(sealed.slice('aes256gcm:v1:'.length), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => box.open(`aes256gcm:v1:${raw.toString('base64')}`)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
  });
});
