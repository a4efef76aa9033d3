/**
 * `npm run seed -- --posts N --users M [--append] [--database-url URL]`: fills the posts and users
 * schemas of the database `npm start` uses (DATABASE_URL, or @community/config's default) through
 * COPY, with Zipf-like authors, words and tags, comments and likes (DESIGN.md §18). Migrates both
 * schemas first when needed. Refuses a database that already holds posts unless --append is given.
 * Every seeded member signs in with the password SEED_PASSWORD (seed-database.ts). Seed a stopped
 * stack: the copy holds the posts tables, their indexes dropped, until it commits.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_DATABASE_URL, redactUrl } from '@community/config';
import { DatabaseNotEmptyError, SEED_PASSWORD, seedDatabase } from './seed-database';

const USAGE = 'usage: npm run seed -- --posts N --users M [--append] [--database-url URL]';

function count(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer\n${USAGE}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      posts: { type: 'string' },
      users: { type: 'string' },
      append: { type: 'boolean', default: false },
      'database-url': { type: 'string' },
    },
  });
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const posts = count('posts', values.posts);
  const users = count('users', values.users);
  const log = (line: string) => process.stdout.write(`seed  ${line}\n`);
  log(`${posts} posts by ${users} new members into ${redactUrl(databaseUrl)}`);
  const result = await seedDatabase({ databaseUrl, posts, users, append: values.append, log });
  log(
    `done: ${result.posts} posts, ${result.comments} comments, ${result.likes} likes, ${result.users} members ` +
      `in ${result.seconds.toFixed(1)} s; database ${(result.databaseBytes / 2 ** 20).toFixed(0)} MiB`,
  );
  log(`every seeded member signs in with the password "${SEED_PASSWORD}"`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    err instanceof DatabaseNotEmptyError ? `seed: ${err.message}\n` : `seed failed: ${String(err)}\n`,
  );
  process.exit(1);
});
