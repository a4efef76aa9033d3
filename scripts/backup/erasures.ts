import { readFileSync } from 'node:fs';
import { createDb, type Sql } from '@community/db';
import { migrateSchema } from '@community/service-runtime';
import path from 'node:path';
import { ROOT, SERVICE_SCHEMAS } from './schemas';

/** One entry of the erasure journal: an id, a time and how content went (no personal data). */
export interface JournaledErasure {
  userId: number;
  erasedAt: string;
  content: string;
}

/**
 * The erasure journal to compare the snapshot with: users-service's table in the database the
 * backup was taken from (a postgres:// URL, when it is still reachable), or a JSON file of
 * `[{"user_id", "erased_at", "content"}]` exported from it earlier (docs/operations.md).
 */
export async function readJournal(source: string): Promise<JournaledErasure[]> {
  if (!/^postgres(ql)?:\/\//.test(source)) {
    const rows = JSON.parse(readFileSync(source, 'utf8')) as Record<string, unknown>[];
    return rows.map((r) => ({
      userId: Number(r.user_id),
      erasedAt: String(r.erased_at),
      content: r.content === 'delete' ? 'delete' : 'keep',
    }));
  }
  const sql = createDb(source, { schema: 'users', max: 1 });
  try {
    const rows = await sql<
      { userId: number; erasedAt: Date; content?: string }[]
    >`select * from users.erasures`;
    return rows.map((r) => ({
      userId: r.userId,
      erasedAt: r.erasedAt.toISOString(),
      content: r.content ?? 'keep',
    }));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Leaves the erasures the snapshot does not hold for users-service, which erases each again at its
 * next start (users-service/src/domain/users/reapply-erasures.ts). The restored users schema is
 * brought to this code's migrations first when it lacks the list (a backup of an older release).
 */
export async function leaveForReapply(
  databaseUrl: string,
  inSnapshot: number[],
  journal: JournaledErasure[],
): Promise<number> {
  const taken = new Set(inSnapshot);
  const due = journal.filter((e) => !taken.has(e.userId));
  if (due.length === 0) return 0;
  const sql = createDb(databaseUrl, { schema: 'users', max: 1 });
  try {
    await ensureReapplyList(sql, databaseUrl);
    for (const e of due)
      await sql`
        insert into erasures_to_reapply (user_id, erased_at, content)
        values (${e.userId}, ${e.erasedAt}, ${e.content}) on conflict do nothing`;
    return due.length;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function ensureReapplyList(sql: Sql, databaseUrl: string): Promise<void> {
  const [row] = await sql<
    { present: boolean }[]
  >`select to_regclass('users.erasures_to_reapply') is not null as present`;
  if (row!.present) return;
  const users = SERVICE_SCHEMAS.find((s) => s.schema === 'users')!;
  await migrateSchema(databaseUrl, 'users', path.join(ROOT, users.migrationsDir));
}
