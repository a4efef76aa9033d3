import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { waitFor } from '@community/test-harness';
import { adminWithKey, gw, memberWithKey } from '../support/stack';
import { artifactPath } from './artifacts';
import { browserStack } from './browser-stack';

// DESIGN.md §20 on the account pages, in a real browser through the gateway: "Download my data" and
// "Delete my account".

const PASSWORD = 'a long password'; // memberWithKey's
const harness = browserStack('leaving');
const url = (pathname: string) => harness.stack.gateway + pathname;

/** A member with a key, a post of theirs, and a browser page signed in as them. */
async function signedInMember(title: string) {
  const { stack, browser } = harness;
  const member = await memberWithKey(stack, ['read', 'write', 'keys']);
  const admin = await adminWithKey(stack);
  const category = await gw(stack, 'POST', '/api/v1/categories', { key: admin.key, body: { name: title } });
  const post = await gw(stack, 'POST', '/api/v1/posts', {
    key: member.key,
    body: { title, content: 'Mine to take along', category_id: category.body.data.id },
  });
  expect(post.status).toBe(201);
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(url('/account/login'));
  await page.fill('#username', member.username);
  await page.fill('#password', PASSWORD);
  await page.click('#login-form button[type=submit]');
  await page.waitForURL((u) => u.pathname === '/account/settings/api');
  return { member, admin, postId: post.body.data.id as number, context, page };
}

/** Submits the delete form with `password`; returns the status of the form's POST. */
async function submitDelete(page: Page, password: string): Promise<number> {
  await page.fill('#password', password);
  const [answer] = await Promise.all([
    page.waitForResponse(
      (res) => res.request().method() === 'POST' && res.url().endsWith('/settings/delete'),
    ),
    page.click('#delete-account-form button[type=submit]'),
  ]);
  return answer.status();
}

describe('leaving and taking one’s data on the account pages', () => {
  it('downloads the member’s data as one JSON file that holds their post', async () => {
    const { member, postId, page } = await signedInMember('Packed for the road');
    await page.goto(url('/account/settings'));

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-data')]);

    expect(download.suggestedFilename()).toBe(`community-${member.username}.json`);
    const exported = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(exported.data.profile.id).toBe(member.id);
    expect(exported.data.posts.map((p: { id: number; title: string }) => [p.id, p.title])).toEqual([
      [postId, 'Packed for the road'],
    ]);
    expect(JSON.stringify(exported)).not.toContain(member.key);
  }, 60_000);

  it('refuses a wrong password and keeps the account; the right one signs out and ends the key', async () => {
    const { member, admin, postId, context, page } = await signedInMember('Gone with me');
    await page.goto(url('/account/settings'));
    await page.click('#delete-account');
    await page.waitForURL((u) => u.pathname === '/account/settings/delete');
    expect(await page.textContent('#delete-warning')).toContain('cannot be undone');

    // A wrong password: refused by the field, nothing erased.
    expect(await submitDelete(page, 'not my password')).toBe(403);
    expect(await page.textContent('#password-error')).toContain('not your password');
    expect((await gw(harness.stack, 'GET', '/api/v1/users/me', { key: member.key })).status).toBe(200);
    await page.screenshot({ path: artifactPath('delete-account-refused.png'), fullPage: true });

    // The right one, with the posts and comments too.
    await page.check('#delete-content');
    expect(await submitDelete(page, PASSWORD)).toBe(303);
    await page.waitForURL((u) => u.pathname === '/account/goodbye');
    expect(await page.textContent('h1')).toBe('Your account is being erased');
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain('cp_session');

    await waitFor(
      async () => (await gw(harness.stack, 'GET', '/api/v1/users/me', { key: member.key })).status === 401,
      { timeoutMs: 5000, intervalMs: 200, what: 'the gateway to refuse the erased member’s key' },
    );
    await waitFor(
      async () =>
        (await gw(harness.stack, 'GET', `/api/v1/posts/${postId}`, { key: admin.key })).status === 404,
      { timeoutMs: 20_000, intervalMs: 200, what: 'the post deleted with the account' },
    );
  }, 60_000);
});
