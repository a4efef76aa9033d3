import { NotFoundError, type ListUsersQuery, type Me, type User } from '@community/contracts';
import type { Sql } from '@community/db';
import type { Page } from '@community/http-kit';
import { findUser, listUsers as queryUsers } from '../../db/users.repository';
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

export async function listUsers(
  sql: Sql,
  { page, limit, sort }: ListUsersQuery,
  base: string,
): Promise<Page<User>> {
  const { rows, total } = await queryUsers(sql, sort, limit, (page - 1) * limit);
  return { items: rows.map((row) => toUser(row, base)), totalItems: total, page, limit };
}
