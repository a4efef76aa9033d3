import { waitFor } from '@community/test-harness';
import { CommunityApiError, createClient } from '@community/sdk';
import { createOAuthClient } from '../src/oauth';
import { clientOf, stackOfFile, type Member } from './support/stack';

// `@community/sdk/oauth` (imported from its source: jest maps only the package's main entry).
const target = stackOfFile('sdk_oauth');
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** The consent page, answered "allow" by the member's signed-in browser; the redirect back to the app. */
async function consent(member: Member, url: URL): Promise<string> {
  const start = await member.browser.get(url.pathname + url.search);
  if (start.status !== 302 || !start.location) throw new Error(`authorize answered ${start.status}`);
  const page = await member.browser.get(start.location);
  const form = /<form id="consent-form"[\s\S]*?<\/form>/.exec(page.html)?.[0] ?? '';
  const fields = [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)].map(
    ([, name, value]) => [name!, value!.replace(/&amp;/g, '&').replace(/&quot;/g, '"')] as [string, string],
  );
  const answer = await member.browser.postForm('/account/oauth/authorize', [
    ...fields,
    ['decision', 'allow'],
  ]);
  if (answer.status !== 303 || !answer.location) throw new Error(`consent answered ${answer.status}`);
  return answer.location;
}

/** A member with a public OAuth app of their own, and the SDK's OAuth client for it. */
async function publicApp() {
  const member = await target().world.member();
  const app = await clientOf(target(), member).createOAuthApp({
    body: { name: 'SDK app', redirect_uris: [REDIRECT_URI], client_type: 'public' },
  });
  const oauth = createOAuthClient({
    baseUrl: target().baseUrl,
    clientId: app.data.client_id,
    redirectUri: REDIRECT_URI,
    allowInsecureRequests: true,
  });
  return { member, oauth };
}

it('gets tokens by authorization code with PKCE, calls the API with them, refreshes and revokes', async () => {
  const { member, oauth } = await publicApp();

  const pending = await oauth.authorizationUrl({ scope: 'read write' });
  expect(pending.url.searchParams.get('code_challenge_method')).toBe('S256');
  const tokens = await oauth.exchangeCode(await consent(member, pending.url), pending);
  expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'read write' });

  const asApp = createClient({ baseUrl: target().baseUrl, accessToken: tokens.access_token });
  expect((await asApp.getMe()).data.id).toBe(member.id);

  const refreshed = await oauth.refresh(tokens.refresh_token!);
  const renewed = createClient({ baseUrl: target().baseUrl, accessToken: refreshed.access_token });
  expect((await renewed.getMe()).data.username).toBe(member.username);

  await oauth.revoke(refreshed.access_token);
  // The gateway's credential cache hears of the revocation by event: within moments, not at once.
  const refused = await waitFor(
    () =>
      renewed.getMe().then(
        () => undefined,
        (err: unknown) => err,
      ),
    { timeoutMs: 10_000, what: 'the revoked token to be refused' },
  );
  expect(refused).toBeInstanceOf(CommunityApiError);
  expect(refused).toMatchObject({ status: 401 });
});

it('refuses a callback whose state is not the one sent', async () => {
  const { member, oauth } = await publicApp();
  const pending = await oauth.authorizationUrl({ scope: 'read' });
  const callback = await consent(member, pending.url);
  await expect(oauth.exchangeCode(callback, { ...pending, state: 'another' })).rejects.toThrow(/state/);
});
