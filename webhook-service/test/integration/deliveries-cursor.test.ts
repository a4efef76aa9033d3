import { waitFor } from '@community/test-harness';
import { owner, startWebhookService, stranger, type WebhooksHarness } from '../support/webhooks-harness';

// DESIGN.md §10: an endpoint's deliveries walk by cursor, newest first, each exactly once while new
// ones arrive; a cursor is good for its own endpoint's list only.

let h: WebhooksHarness;
let endpoint: number;
let other: number;

beforeAll(async () => {
  // No dispatcher: the deliveries stay as stored.
  h = await startWebhookService('deliveries-cursor', {}, { dispatch: false });
  const subscribe = async () =>
    (
      await h.call(owner, 'POST', '/webhooks', {
        body: { url: 'http://127.0.0.1:9/hook', events: ['post.created'] },
      })
    ).body.data.id as number;
  [endpoint, other] = [await subscribe(), await subscribe()];
  for (let i = 1; i <= 25; i++) await h.publish('post.created', { id: i, title: 't', author_id: 1 });
  await waitFor(
    async () => (await h.sql`select 1 from deliveries where endpoint_id = ${endpoint}`).length === 25,
    { what: '25 deliveries stored' },
  );
}, 30_000);
afterAll(() => h.stop());

const deliveries = (query: string, id = endpoint, who = owner) =>
  h.call(who, 'GET', `/webhooks/${id}/deliveries?${query}`);

it('walks every delivery once, newest first, while new ones arrive', async () => {
  const original = (
    await h.sql<{ id: number }[]>`select id from deliveries where endpoint_id = ${endpoint} order by id desc`
  ).map((row) => row.id);
  const seen: number[] = [];
  let res = await deliveries('limit=10');
  expect(res.body.pagination).toMatchObject({ current_page: 1, total_items: 25 });
  for (let n = 26; ; n++) {
    seen.push(...res.body.data.map((d: { id: number }) => d.id));
    const next = res.body.pagination.next_cursor;
    if (!next) break;
    await h.publish('post.created', { id: n, title: 'new', author_id: 1 });
    res = await deliveries(`limit=10&cursor=${next}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('link') ?? '').toMatch(/rel="next"|^$/);
  }
  expect(seen).toEqual(original);
});

it('keeps a cursor to its endpoint and status filter, and to its owner', async () => {
  const next = (await deliveries('limit=5')).body.pagination.next_cursor;
  expect((await deliveries(`cursor=${next}`, other)).status).toBe(400);
  expect((await deliveries(`cursor=${next}&status=pending`)).status).toBe(400);
  expect((await deliveries(`cursor=${next}&page=1`)).status).toBe(400);
  // Someone else's endpoint stays someone else's, cursor or not.
  expect((await deliveries(`cursor=${next}`, endpoint, stranger)).status).toBe(404);
});
