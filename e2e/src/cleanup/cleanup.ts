import { waitFor } from '@community/test-harness';
import { expectStatus, type Call } from '../client/http';
import type { World } from '../world';

export interface CleanedUp {
  accounts: number;
  categories: number;
}

/** Every page of a list the admin reads. */
async function everyPage<T>(as: Call, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page += 1) {
    const { data, pagination } = expectStatus(await as('GET', `${path}&limit=100&page=${page}`), 200).body;
    items.push(...(data as T[]));
    if (page >= (pagination?.total_pages ?? 1)) return items;
  }
}

/**
 * Deletes through the API what the run `runId` created (E2E_CLEANUP=1, `npm run e2e:cleanup`): its
 * accounts, erased with their content (posts, comments, likes, keys, webhooks: DESIGN.md §20), then
 * its categories, once their posts are gone. The admin's own account is never touched.
 */
export async function cleanUpRun(world: World, runId: string, log: (line: string) => void = () => {}) {
  if (!/^[a-z0-9]{3,12}$/.test(runId)) throw new Error(`not a run id: "${runId}"`);
  const admin = await world.admin();
  const as = world.as(admin);
  const users = await everyPage<{ id: number; username: string }>(as, `/api/v1/users?q=${runId}`);
  const accounts = users.filter((u) => u.username.startsWith(`${runId}_`) && u.id !== admin.id);
  for (const { id } of accounts) {
    expectStatus(await as('DELETE', `/api/v1/users/${id}?content=delete`), 202);
  }
  log(`cleanup ${runId}: ${accounts.length} accounts erasing with their content`);
  const categories = (
    await everyPage<{ id: number; name: string; slug: string }>(as, '/api/v1/categories?')
  ).filter((c) => c.name.toLowerCase().includes(runId) || c.slug.includes(runId));
  for (const { id } of categories) {
    // A category with posts answers 409 until the erasures have removed them.
    const answer = await waitFor(
      async () => {
        const deleted = await as('DELETE', `/api/v1/categories/${id}`);
        return deleted.status !== 409 && deleted;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: `category ${id} without posts` },
    );
    expectStatus(answer, 200);
  }
  log(`cleanup ${runId}: ${categories.length} categories deleted`);
  return { accounts: accounts.length, categories: categories.length } satisfies CleanedUp;
}
