import type { BrowserContext, Page } from 'playwright-core';
import { waitFor } from '@community/test-harness';
import { gw } from '../support/stack';
import { browserStack } from './browser-stack';
import { artifactPath } from './artifacts';

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };
const PASSWORD = 'a good long password';
const KEY = /^cpk_[0-9A-Za-z]{40}$/;

// The project compiles without the DOM library; these are the browser shapes the page functions read.
interface BrowserGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
  document: { documentElement: { scrollWidth: number } };
}
interface LabelledInput {
  id: string;
  labels: { length: number } | null;
}

const harness = browserStack('browser');

async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await harness.browser.newContext({ viewport: DESKTOP });
  return { context, page: await context.newPage() };
}

const url = (pathname: string) => harness.stack.gateway + pathname;
const onApiPage = (page: Page) => page.waitForURL((u) => u.pathname === '/account/settings/api');

async function register(page: Page, username: string) {
  await page.goto(url('/account/register'));
  await page.fill('#username', username);
  await page.fill('#email', `${username}@example.test`);
  await page.fill('#password', PASSWORD);
  await page.fill('#display_name', 'Browser Developer');
  await page.click('#register-form button[type=submit]');
  await onApiPage(page);
}

/** Submits the login form and returns the status of the form's POST. */
async function logIn(page: Page, username: string, password: string): Promise<number> {
  await page.goto(url('/account/login'));
  await page.fill('#username', username);
  await page.fill('#password', password);
  const [answer] = await Promise.all([
    page.waitForResponse((res) => res.request().method() === 'POST' && res.url().endsWith('/account/login')),
    page.click('#login-form button[type=submit]'),
  ]);
  return answer.status();
}

/** Generates a key on the API page with read, write and keys; returns the key the page shows. */
async function generateKey(page: Page, name: string): Promise<string> {
  expect(await page.isChecked('#scope-read')).toBe(true);
  expect(await page.isChecked('#scope-write')).toBe(true);
  await page.fill('#name', name);
  await page.check('#scope-keys');
  const [generated] = await Promise.all([
    page.waitForResponse((res) => res.url().endsWith('/account/settings/api/keys')),
    page.click('#generate-key-form button[type=submit]'),
  ]);
  expect(generated.status()).toBe(201);
  return (await page.textContent('#new-key'))?.trim() ?? '';
}

/** Clicks "Copy key" with clipboard access granted; returns what the page said and what was copied. */
async function copyWithButton(context: BrowserContext, page: Page) {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.stack.gateway });
  await page.click('#copy-key');
  const status = page.locator('#copy-status').filter({ hasText: /\S/ });
  await status.waitFor();
  return {
    status: await status.textContent(),
    clipboard: await page.evaluate(() =>
      (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText(),
    ),
  };
}

/** How wide the document is; wider than the viewport means the page scrolls sideways. */
const pageWidth = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.documentElement.scrollWidth);

/** Visible inputs without a label, by id; an empty list is what we want. */
const unlabelledInputs = (page: Page) =>
  page
    .locator('input:visible')
    .evaluateAll((inputs: LabelledInput[]) => inputs.filter((i) => !i.labels?.length).map((i) => i.id));

describe('the account pages in a real browser, through the gateway', () => {
  it('takes a developer from registration to a working key, shown once, then revoked on the page', async () => {
    const { context, page } = await openPage();
    const username = 'browser_dev';

    // Register, log out, log in again: each lands where it should.
    await register(page, username);
    expect(await page.textContent('nav')).toContain(`Signed in as ${username}`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL((u) => u.pathname === '/account/login');
    expect(await logIn(page, username, PASSWORD)).toBe(303);
    await onApiPage(page);

    // Generate a key with the keys scope on top of the defaults, and copy it with the button.
    const key = await generateKey(page, 'browser journey');
    expect(key).toMatch(KEY);
    expect(await page.textContent('.new-key')).toMatch(/won’t see it again/);
    expect(await copyWithButton(context, page)).toEqual({
      status: 'Copied to the clipboard.',
      clipboard: key,
    });

    // The key works against the API, with every scope it was given.
    const me = await gw(harness.stack, 'GET', '/api/v1/users/me', { key });
    expect(me.status).toBe(200);
    expect(me.body.data.username).toBe(username);
    expect((await gw(harness.stack, 'GET', '/api/v1/posts', { key })).status).toBe(200);
    expect((await gw(harness.stack, 'GET', '/api/v1/keys', { key })).status).toBe(200);

    // Pictures for a person, on a desktop and on a phone, where only the keys table may scroll sideways.
    await page.screenshot({ path: artifactPath('api-keys-desktop.png'), fullPage: true });
    await page.setViewportSize(PHONE);
    expect(await pageWidth(page)).toBe(PHONE.width);
    await page.screenshot({ path: artifactPath('api-keys-phone.png'), fullPage: true });

    // Shown once: opened again (by address, as a reload would send the form's POST again) it shows the prefix.
    const reopened = await page.goto(url('/account/settings/api'));
    expect(reopened?.status()).toBe(200);
    const html = await page.content();
    expect(html).not.toContain(key);
    expect(html).toContain(`${key.slice(0, 12)}…`);

    // Revoke it on the page, through the confirm dialog.
    const row = page.locator('tr[data-key-id]', { hasText: 'browser journey' });
    let confirmed = '';
    page.once('dialog', (dialog) => {
      confirmed = dialog.message();
      void dialog.accept();
    });
    await row.locator('button.revoke').click();
    await page.waitForURL((u) => u.searchParams.get('revoked') === '1');
    expect(confirmed).toContain('browser journey');
    expect(await row.count()).toBe(0);

    // The gateway stops honouring it within 5 s.
    await waitFor(async () => (await gw(harness.stack, 'GET', '/api/v1/users/me', { key })).status === 401, {
      timeoutMs: 5000,
      what: 'the gateway to refuse the revoked key',
    });
  }, 60_000);

  it('refuses a wrong password with 401 and says so above the form', async () => {
    const { context, page } = await openPage();
    await register(page, 'browser_typo');
    await page.getByRole('button', { name: 'Log out' }).click();

    const status = await logIn(page, 'browser_typo', 'not the password');

    expect(status).toBe(401);
    expect(await page.textContent('#form-error')).toContain('Wrong username or password.');
    expect(page.url()).toBe(url('/account/login'));
    expect(await page.inputValue('#username')).toBe('browser_typo');
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain('cp_session');
  });

  it('labels every input, offers a skip link first and declares the language', async () => {
    const { page } = await openPage();
    const checks: Record<string, unknown> = {};

    for (const pathname of ['/account/register', '/account/login']) {
      await page.goto(url(pathname));
      checks[pathname] = await a11ySummary(page);
    }
    await register(page, 'browser_a11y');
    checks['/account/settings/api'] = await a11ySummary(page);

    const expected = { lang: 'en', unlabelled: [], firstTab: 'Skip to content', firstTabOnScreen: true };
    expect(checks).toEqual({
      '/account/register': expected,
      '/account/login': expected,
      '/account/settings/api': expected,
    });
  });
});

/** What a keyboard or screen-reader user meets first on the page. */
async function a11ySummary(page: Page) {
  await page.keyboard.press('Tab');
  const focused = page.locator(':focus');
  const box = await focused.boundingBox();
  return {
    lang: await page.locator('html').getAttribute('lang'),
    unlabelled: await unlabelledInputs(page),
    firstTab: (await focused.textContent())?.trim(),
    firstTabOnScreen: box !== null && box.x >= 0 && box.y >= 0,
  };
}
