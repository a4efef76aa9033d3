import type { Role } from '@community/contracts';
import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

export interface SessionRow {
  userId: number;
  csrfHash: Buffer;
  expiresAt: Date;
  username: string;
  displayName: string;
  role: Role;
}

export async function insertSession(
  db: Db,
  session: { id: Buffer; userId: number; csrfHash: Buffer; expiresAt: Date },
): Promise<void> {
  await db`
    insert into sessions (id, user_id, csrf_hash, expires_at)
    values (${session.id}, ${session.userId}, ${session.csrfHash}, ${session.expiresAt})`;
}

export async function findSession(db: Db, id: Buffer): Promise<SessionRow | null> {
  const [row] = await db<SessionRow[]>`
    select s.user_id, s.csrf_hash, s.expires_at, u.username, u.display_name, u.role
    from sessions s join users u on u.id = s.user_id
    where s.id = ${id} and s.expires_at > now()`;
  return row ?? null;
}

export async function deleteSession(db: Db, id: Buffer): Promise<void> {
  await db`delete from sessions where id = ${id}`;
}

export async function deleteExpiredSessions(db: Db): Promise<void> {
  await db`delete from sessions where expires_at < now()`;
}
