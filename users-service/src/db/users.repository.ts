import type { Plan, Role } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import type { UserRow } from './rows';

type Db = Sql | Tx;

const UNIQUE_VIOLATION = '23505';

/** Which unique field a write collided with. */
export class UniqueFieldTaken extends Error {
  constructor(readonly field: 'username' | 'email') {
    super(`${field} taken`);
  }
}

const SELECT_USER = (db: Db) => db`
  select u.id, u.username, u.email, u.display_name, u.avatar, u.bio, u.role, u.plan, u.hourly_limit,
         u.daily_limit, u.posts_count, u.comments_count, u.likes_received, u.reputation, u.created_at,
         coalesce((
           select json_agg(json_build_object('id', b.id, 'name', b.name, 'icon', b.icon) order by ub.awarded_at, b.id)
           from user_badges ub join badges b on b.id = ub.badge_id
           where ub.user_id = u.id
         ), '[]'::json) as badges
  from users u`;

export async function findUser(db: Db, id: number): Promise<UserRow | null> {
  const [row] = await db<UserRow[]>`${SELECT_USER(db)} where u.id = ${id}`;
  return row ?? null;
}

export async function findUserByUsername(
  db: Db,
  username: string,
): Promise<(UserRow & { passwordHash: string }) | null> {
  const [row] = await db<(UserRow & { passwordHash: string })[]>`
    select u.*, '[]'::json as badges from users u where u.username = ${username}`;
  return row ?? null;
}

export async function listUsers(db: Db, sort: 'newest' | 'reputation', limit: number, offset: number) {
  const order = sort === 'reputation' ? db`u.reputation desc, u.id desc` : db`u.created_at desc, u.id desc`;
  const [rows, [count]] = await Promise.all([
    db<UserRow[]>`${SELECT_USER(db)} order by ${order} limit ${limit} offset ${offset}`,
    db<{ total: number }[]>`select count(*)::int as total from users`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

/**
 * Users whose username or display name starts with `q`, case and accents aside (DESIGN.md §11),
 * best match first: the username itself, then usernames that start with it, then display names;
 * shorter names first within each.
 */
export async function lookUpUsers(db: Db, q: string, limit: number, offset: number) {
  // `q` is text, never a pattern: its LIKE wildcards match themselves.
  const prefix = db`fold(${q.replace(/[\\%_]/g, '\\$&')}) || '%'`;
  const matches = db`u.username_folded like ${prefix} or u.display_name_folded like ${prefix}`;
  const order = db`u.username_folded = fold(${q}) desc, u.username_folded like ${prefix} desc,
    length(u.username), u.username, u.id`;
  const [rows, [count]] = await Promise.all([
    // The page's ids first: the profile with its badges is read for those rows only.
    db<UserRow[]>`
      with page as (
        select u.id, row_number() over (order by ${order}) as position from users u
        where ${matches} order by ${order} limit ${limit} offset ${offset}
      )
      select x.* from (${SELECT_USER(db)} where u.id in (select id from page)) x
      join page using (id) order by page.position`,
    db<{ total: number }[]>`select count(*)::int as total from users u where ${matches}`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

export async function insertUser(
  tx: Tx,
  user: { username: string; email: string; passwordHash: string; displayName: string; role?: Role },
): Promise<number> {
  try {
    const [row] = await tx<{ id: number }[]>`
      insert into users (username, email, password_hash, display_name, role)
      values (${user.username}, ${user.email}, ${user.passwordHash}, ${user.displayName}, ${user.role ?? 'member'})
      returning id`;
    return row!.id;
  } catch (err) {
    throw asUniqueFieldTaken(err);
  }
}

export async function updateProfile(
  tx: Tx,
  id: number,
  changes: Partial<{ displayName: string; bio: string; avatar: string | null }>,
): Promise<void> {
  const values: Record<string, string | null> = {};
  if (changes.displayName !== undefined) values.display_name = changes.displayName;
  if (changes.bio !== undefined) values.bio = changes.bio;
  if (changes.avatar !== undefined) values.avatar = changes.avatar;
  const columns = Object.keys(values);
  if (columns.length === 0) return;
  await tx`update users set ${tx(values, columns)}, updated_at = now() where id = ${id}`;
}

export async function setPlan(
  tx: Tx,
  id: number,
  plan: Plan,
  limits: { hourly: number; daily: number } | null,
): Promise<boolean> {
  const rows = await tx`
    update users set plan = ${plan}, hourly_limit = ${limits?.hourly ?? null}, daily_limit = ${limits?.daily ?? null},
           updated_at = now()
    where id = ${id} returning id`;
  return rows.length > 0;
}

export async function setRole(tx: Tx, id: number, role: Role): Promise<boolean> {
  const rows = await tx`update users set role = ${role}, updated_at = now() where id = ${id} returning id`;
  return rows.length > 0;
}

function asUniqueFieldTaken(err: unknown): unknown {
  const { code, constraint_name: constraint } = err as { code?: string; constraint_name?: string };
  if (code !== UNIQUE_VIOLATION) return err;
  return new UniqueFieldTaken(constraint === 'users_email_key' ? 'email' : 'username');
}
