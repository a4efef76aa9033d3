import {
  NotFoundError,
  searchWindow,
  ValidationError,
  type ListUsersQuery,
  type Me,
  type User,
} from '@community/contracts';
import type { Sql } from '@community/db';
import type { Page } from '@community/http-kit';
import { findUser, listUsers as queryUsers, lookUpUsers } from '../../db/users.repository';
import { toMe, toUser } from './representations';

export async function readUser(sql: Sql, id: number, base: string): Promise<User> {
  const row = await findUser(sql, id);
  if (!row) throw new NotFoundError('user');
  return toUser(row, base);
}

export async function readMe(sql: Sql, id: number, base: string): Promise<Me> {
  const row = await findUser(sql, id);
  if (!row) throw new NotFoundError('user');
  return toMe(row, base);
}

/** The users in a sort, or those a lookup `q` finds, best match first (DESIGN.md §11). */
export async function listUsers(
  sql: Sql,
  { page, limit, sort, q }: ListUsersQuery,
  base: string,
): Promise<Page<User>> {
  const offset = (page - 1) * limit;
  if (q !== undefined && sort !== undefined)
    throw ValidationError.single('sort', 'invalid_value', 'with q, users come best match first: no sort');
  if (q === undefined) {
    const { rows, total } = await queryUsers(sql, sort ?? 'newest', limit, offset);
    return { items: rows.map((row) => toUser(row, base)), totalItems: total, page, limit };
  }
  const window = searchWindow(offset, limit);
  const { rows, total } = await lookUpUsers(sql, q, window.limit, window.offset);
  const items = rows.map((row) => toUser(row, base));
  return { items, totalItems: total.total, totalCapped: total.capped, page, limit };
}
