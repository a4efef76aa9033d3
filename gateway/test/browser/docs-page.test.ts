import type { ConsoleMessage, Page, Request } from 'playwright-core';
import { buildOpenApiDocument, OPERATIONS } from '@community/openapi';
import { browserStack } from './browser-stack';
import { artifactPath } from './artifacts';

const harness = browserStack('docs');

interface Visit {
  page: Page;
  /** Every URL the page asked for that is not the gateway's own origin. */
  offsite: string[];
  requested: string[];
  problems: string[];
}

/** Opens /docs with every request recorded; any request off this origin is refused and listed. */
async function openDocs(): Promise<Visit> {
  const context = await harness.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const origin = new URL(harness.stack.gateway).origin;
  const visit: Visit = { page, offsite: [], requested: [], problems: [] };
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin || url.startsWith('data:')) return route.continue();
    visit.offsite.push(url);
    return route.abort('internetdisconnected');
  });
  page.on('request', (request: Request) => visit.requested.push(request.url()));
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') visit.problems.push(message.text());
  });
  page.on('pageerror', (error) => visit.problems.push(error.message));
  await page.goto(`${harness.stack.gateway}/docs`);
  await page.waitForSelector('.opblock', { timeout: 20_000 });
  return visit;
}

it('renders every operation from the gateway alone, with no request leaving it', async () => {
  const { page, offsite, requested, problems } = await openDocs();
  try {
    // Swagger UI gives each operation block the id `operations-<tag>-<operationId>`.
    const listed = await page.$$eval('.opblock', (blocks) => blocks.map((block) => block.id));
    expect(listed).toEqual(expect.arrayContaining(OPERATIONS.map((op) => `operations-${op.tag}-${op.id}`)));
    // …plus the document's webhooks: one per public event, and the test ping.
    const webhooks = Object.keys(buildOpenApiDocument().webhooks ?? {}).length;
    expect(webhooks).toBeGreaterThan(0);
    expect(listed).toHaveLength(OPERATIONS.length + webhooks);
    expect(requested).toContain(`${harness.stack.gateway}/api/v1/openapi.json`);
    expect(offsite).toEqual([]);
    // A CSP violation or a script error would show here.
    expect(problems).toEqual([]);
    await page.screenshot({ path: artifactPath('docs-overview.png'), fullPage: true });
  } finally {
    await page.context().close();
  }
});

it('shows the posts list operation with its parameters and answer', async () => {
  const { page, offsite, problems } = await openDocs();
  try {
    const listPosts = page.locator('#operations-Posts-listPosts');
    await listPosts.locator('.opblock-summary').click();
    await listPosts.locator('.parameters').waitFor();
    const text = await listPosts.innerText();
    expect(text).toContain('/posts');
    expect(text).toContain('List posts');
    for (const name of ['page', 'limit', 'category', 'author', 'tag', 'sort']) expect(text).toContain(name);
    for (const status of ['200', '400', '401', '403', '429']) expect(text).toContain(status);
    expect(text).toContain('X-RateLimit-Remaining');
    expect(offsite).toEqual([]);
    expect(problems).toEqual([]);
    await listPosts.screenshot({ path: artifactPath('docs-list-posts.png') });
  } finally {
    await page.context().close();
  }
});

it('has a CSP that stops the page itself from reaching another host', async () => {
  const { page, offsite, problems } = await openDocs();
  try {
    const outcome = await page.evaluate(() =>
      fetch('https://cdn.example.com/swagger-ui.js').then(
        () => 'loaded',
        () => 'blocked',
      ),
    );
    expect(outcome).toBe('blocked');
    // Refused by the browser before any request was made: the network never saw it.
    expect(offsite).toEqual([]);
    expect(problems.join('\n')).toMatch(
      /violates the following Content Security Policy directive: "connect-src 'self'"/,
    );
  } finally {
    await page.context().close();
  }
});
