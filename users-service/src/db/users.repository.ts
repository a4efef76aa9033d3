import { SEARCH_CAP, searchTotal, type Plan, type Role, type SearchTotal } from '@community/contracts';
import type { Sql, Tx } from '@community/db';
import type { UserRow } from './rows';

type Db = Sql | Tx;
type Fragment = ReturnType<Sql['unsafe']>;

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
 * best match first: usernames that start with it, shortest first (so the username itself leads),
 * then display names, by the same order of usernames; and how many match, up to SEARCH_CAP.
 * `offset` and `limit` lie within the first SEARCH_CAP matches (`limit` 0 past them).
 */
export async function lookUpUsers(
  sql: Sql,
  q: string,
  limit: number,
  offset: number,
): Promise<{ rows: UserRow[]; total: SearchTotal }> {
  // `q` is text, never a pattern: its LIKE wildcards match themselves.
  const prefix = sql`fold(${q.replace(/[\\%_]/g, '\\$&')}) || '%'`;
  const byUsername = sql`u.username_folded like ${prefix}`;
  const byDisplayNameOnly = sql`u.display_name_folded like ${prefix} and not (${byUsername})`;
  const [ids, total] = await Promise.all([
    limit === 0 ? [] : lookUpIds(sql, byUsername, byDisplayNameOnly, limit, offset),
    countLookUp(sql, byUsername, byDisplayNameOnly),
  ]);
  // The profile with its badges is read for the page's rows only.
  const rows =
    ids.length === 0
      ? []
      : await sql<UserRow[]>`
    ${SELECT_USER(sql)} where u.id = any(${ids}::int[]) order by array_position(${ids}::int[], u.id)`;
  return { rows, total };
}

/**
 * How many users a lookup finds, up to SEARCH_CAP: the username matches on their index, and only
 * when they are fewer than that (CASE runs its subquery only then), the users only their display
 * name matches.
 */
async function countLookUp(
  sql: Sql,
  byUsername: Fragment,
  byDisplayNameOnly: Fragment,
): Promise<SearchTotal> {
  const [row] = await sql<{ count: number }[]>`
    select named + case when named > ${SEARCH_CAP} then 0 else (
      select count(*)::int from (select 1 from users u where ${byDisplayNameOnly} limit ${SEARCH_CAP + 1}) m
    ) end as count
    from (select count(*)::int as named from (
      select 1 from users u where ${byUsername} limit ${SEARCH_CAP + 1}) m) n`;
  return searchTotal(row?.count ?? 0);
}

/**
 * The ids of a lookup's page: username matches walked in order on users_username_lookup_idx
 * (length, then name), so a common prefix reads one page of them, not all; then, past them, the
 * users only their display name matches.
 */
async function lookUpIds(
  sql: Sql,
  byUsername: Fragment,
  byDisplayNameOnly: Fragment,
  limit: number,
  offset: number,
) {
  const order = sql`length(u.username_folded), u.username_folded, u.id`;
  const named = await sql<{ id: number }[]>`
    select u.id from users u where ${byUsername} order by ${order} limit ${offset + limit}`;
  const ids = named.slice(offset).map((row) => row.id);
  if (named.length === offset + limit) return ids;
  const rest = await sql<{ id: number }[]>`
    select u.id from users u where ${byDisplayNameOnly}
    order by ${order} limit ${offset + limit - Math.max(offset, named.length)} offset ${Math.max(0, offset - named.length)}`;
  return [...ids, ...rest.map((row) => row.id)];
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
