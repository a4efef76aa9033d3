import { actor, waitFor } from '@community/test-harness';
import { codeFlow, oauthContext, registerApp, signedInMember, type OAuthContext } from '../support/oauth';
import { adminWithKey, gw, memberWithKey, mintKey, startStack, type Stack } from '../support/stack';

// DESIGN.md §12: a suspension stops every key and token of the account at the gateway within 5 s.

let stack: Stack;
let ctx: OAuthContext;
let moderatorKey: string;
let moderatorId: number;

beforeAll(async () => {
  stack = await startStack('suspension', { ANON_HOURLY_LIMIT: '100000', ANON_DAILY_LIMIT: '100000' });
  ctx = await oauthContext(stack);
  const moderator = await memberWithKey(stack);
  moderatorId = moderator.id;
  const promoted = await stack.users(actor(1, 'admin', ['admin']), 'PUT', `/users/${moderator.id}/role`, {
    body: { role: 'moderator' },
  });
  if (promoted.status !== 200) throw new Error(promoted.text);
  const owner = actor(moderator.id, 'moderator', ['read', 'write', 'keys', 'moderate']);
  const minted = await stack.users(owner, 'POST', '/keys', {
    body: { name: 'moderation', scopes: ['read', 'write', 'moderate'] },
  });
  if (minted.status !== 201) throw new Error(minted.text);
  moderatorKey = minted.body.data.key as string;
}, 60_000);
afterAll(() => stack.stop());

const suspend = (userId: number, body: object, key = moderatorKey) =>
  gw(stack, 'PUT', `/api/v1/users/${userId}/suspension`, { key, body });

/** A member holding two API keys and an OAuth access token, each used once (so each is cached). */
async function memberWithThreeCredentials() {
  const user = await signedInMember(stack);
  // On pro, polling every credential for seconds stays far within the account's budget.
  const plan = await stack.users(actor(1, 'admin', ['admin']), 'PUT', `/users/${user.id}/plan`, {
    body: { plan: 'pro' },
  });
  if (plan.status !== 200) throw new Error(plan.text);
  const second = await mintKey(stack, user.id);
  const app = await registerApp(stack, user.key, { client_type: 'public' });
  const tokens = await codeFlow(ctx, app, user.visitor, { scope: 'read write' });
  const credentials = [user.key, second.key, tokens.access_token];
  for (const key of credentials)
    expect((await gw(stack, 'GET', '/api/v1/users/me', { key })).status).toBe(200);
  return { id: user.id, credentials };
}

const statuses = (credentials: string[]) =>
  Promise.all(credentials.map(async (key) => gw(stack, 'GET', '/api/v1/posts', { key })));

describe('suspension through the gateway', () => {
  it('refuses two keys and a token within 5 s with 403 account_suspended, and lifting lets them in again', async () => {
    const { id, credentials } = await memberWithThreeCredentials();
    const started = Date.now();
    const res = await suspend(id, { reason: 'spam in <b>five</b> categories' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      user_id: id,
      until: null,
      reason: 'spam in <b>five</b> categories',
    });

    const refused = await waitFor(
      async () => {
        const answers = await statuses(credentials);
        return answers.every((a) => a.status === 403) ? answers : undefined;
      },
      { what: 'all three credentials refused', timeoutMs: 5000, intervalMs: 50 },
    );
    expect(Date.now() - started).toBeLessThan(5000);
    for (const answer of refused) {
      expect(answer.body).toEqual({
        error: 'account_suspended',
        message: 'this account is suspended until a moderator lifts it',
        details: { until: null, reason: 'spam in <b>five</b> categories' },
      });
    }
    // Whatever it asks: its own profile too.
    expect((await gw(stack, 'GET', '/api/v1/users/me', { key: credentials[0] })).body.error).toBe(
      'account_suspended',
    );

    const lifted = await gw(stack, 'DELETE', `/api/v1/users/${id}/suspension`, { key: moderatorKey });
    expect([lifted.status, lifted.body.data]).toEqual([200, { user_id: id, lifted: true }]);
    await waitFor(async () => (await statuses(credentials)).every((a) => a.status === 200), {
      what: 'all three credentials working again',
      timeoutMs: 5000,
      intervalMs: 50,
    });
    const again = await gw(stack, 'DELETE', `/api/v1/users/${id}/suspension`, { key: moderatorKey });
    expect(again.status).toBe(404);
  });

  it('ends a suspension by itself when its until passes', async () => {
    const { id, credentials } = await memberWithThreeCredentials();
    const until = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000 + 1000)
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    expect((await suspend(id, { until, reason: 'cool off' })).status).toBe(200);
    const refused = await waitFor(
      async () => {
        const answers = await statuses(credentials);
        return answers.every((a) => a.status === 403) ? answers : undefined;
      },
      { what: 'refused until then', timeoutMs: 5000, intervalMs: 50 },
    );
    expect(refused[0]!.body.details).toEqual({ until, reason: 'cool off' });
    await waitFor(
      async () => {
        const answers = await statuses(credentials);
        if (answers.every((a) => a.status === 200)) return true;
        throw new Error(JSON.stringify(answers.map((a) => [a.status, a.body?.details])));
      },
      {
        what: 'working again after until',
        timeoutMs: 8000,
        intervalMs: 100,
      },
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
  });

  it('never suspends an admin or yourself, and a member may not suspend at all', async () => {
    const admin = await adminWithKey(stack);
    const bystander = await memberWithKey(stack);
    const ofAdmin = await suspend(admin.id, { reason: 'x' });
    expect([ofAdmin.status, ofAdmin.body.error]).toEqual([403, 'forbidden']);
    const ofSelf = await suspend(moderatorId, { reason: 'x' });
    expect([ofSelf.status, ofSelf.body.error]).toEqual([403, 'forbidden']);
    const byMember = await suspend(admin.id, { reason: 'x' }, bystander.key);
    expect([byMember.status, byMember.body.error]).toEqual([403, 'insufficient_scope']);
    const unknown = await suspend(99_999_999, { reason: 'x' });
    expect(unknown.status).toBe(404);
    for (const body of [
      {},
      { reason: '' },
      { reason: 'x', until: '2001-01-01T00:00:00Z' },
      { reason: 'x', until: 'soon' },
    ]) {
      const bad = await suspend(bystander.id, body);
      expect([JSON.stringify(body), bad.status, bad.body.error]).toEqual([
        JSON.stringify(body),
        400,
        'validation_error',
      ]);
    }
    // Parallel suspensions of one account: each answered, the last one stands, none a 500.
    const burst = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((reason) => suspend(bystander.id, { reason })),
    );
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});
