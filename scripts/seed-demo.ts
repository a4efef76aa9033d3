/**
 * `npm run seed:demo`: fills a stack with the demo community through its public API (DESIGN.md §19):
 * about 50 members over the plans, 8 categories, 500 posts with threads, likes, tags, mentions, two
 * flags in the queue and three paused webhooks. A second run finds what is there and adds nothing.
 *   SEED_BASE_URL   the gateway (default http://127.0.0.1:$GATEWAY_PORT, 8080)
 *   ADMIN_USERNAME, ADMIN_PASSWORD   the admin account npm start and compose create
 * A stack that does not trust the seeder's X-Forwarded-For sees every registration come from one
 * address: start it with REGISTRATIONS_PER_HOUR_PER_IP=100 or more (SEED_DEMO=true does).
 */
import { seedDemo } from '../e2e/src/seed/seed-demo';

export async function seedDemoFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const baseUrl = (env.SEED_BASE_URL || `http://127.0.0.1:${env.GATEWAY_PORT || 8080}`).replace(/\/+$/, '');
  const { ADMIN_USERNAME: username, ADMIN_PASSWORD: password } = env;
  if (!username || !password) {
    throw new Error('seed:demo signs in as the admin: set ADMIN_USERNAME and ADMIN_PASSWORD');
  }
  const started = Date.now();
  const log = (line: string) => process.stdout.write(`seed:demo  ${line}\n`);
  log(`seeding ${baseUrl} as ${username}`);
  const { added, found, notes } = await seedDemo({ baseUrl, admin: { username, password }, log });
  for (const note of notes) log(`note: ${note}`);
  const summary = Object.entries(added)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');
  log(`added ${summary} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (Object.values(added).every((count) => count === 0)) {
    log(
      `the demo community was already there (${found.members} members, ${found.posts} posts): nothing added`,
    );
  }
  log(`try: curl -H "Authorization: Bearer <key>" "${baseUrl}/api/v1/posts?sort=trending&limit=5"`);
}

if (require.main === module) {
  seedDemoFromEnv().catch((err: unknown) => {
    process.stderr.write(`seed:demo failed: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
