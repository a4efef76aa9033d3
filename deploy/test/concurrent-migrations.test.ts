import path from 'node:path';
import { createDb } from '@community/db';
import { applyMigrations } from '@community/service-runtime';
import { createTestDatabase } from '@community/test-harness';

/*
 * `npm start`, docker compose and the e2e stacks start every service at once against one empty
 * database, so their migrations race. Each service's own schema is its own, but the `unaccent`
 * extension the search migrations make is the database's: the second must wait for the first.
 */

const root = path.resolve(__dirname, '../..');
const SERVICES = [
  ['posts', 'posts-service'],
  ['users', 'users-service'],
  ['webhooks', 'webhook-service'],
] as const;

it('migrates one empty database from every service at the same moment', async () => {
  for (let round = 1; round <= 3; round++) {
    const database = await createTestDatabase(`migrate_race_${round}`);
    const pools = SERVICES.map(([schema]) => createDb(database.url, { schema, max: 2 }));
    try {
      const applied = await Promise.all(
        SERVICES.map(([schema, dir], i) =>
          applyMigrations(pools[i]!, schema, path.join(root, dir, 'src/db/migrations')),
        ),
      );
      expect(applied.every((names) => names.length > 0)).toBe(true);
      const [posts] = pools;
      const [folded] = await posts!<{ folded: string }[]>`select users.fold('Ça Va') as folded`;
      expect(folded!.folded).toBe('ca va');
    } finally {
      await Promise.all(pools.map((pool) => pool.end({ timeout: 1 })));
      await database.drop();
    }
  }
}, 60_000);
