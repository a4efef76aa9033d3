import { NotFoundError, type ListUsersQuery, type Me, type User } from '@community/contracts';
import type { Sql } from '@community/db';
import type { Page } from '@community/http-kit';
import { findUser, listUsers as queryUsers } from '../../db/users.repository';
import { toMe, toUser } from './representations';

export async function readUser(sql: Sql, id: number): Promise<User> {
  const row = await findUser(sql, id);
  if (!row) throw new NotFoundError('user');
  return toUser(row);
}

export async function readMe(sql: Sql, id: number): Promise<Me> {
  const row = await findUser(sql, id);
  if (!row) throw new NotFoundError('user');
  return toMe(row);
}

export async function listUsers(sql: Sql, { page, limit, sort }: ListUsersQuery): Promise<Page<User>> {
  const { rows, total } = await queryUsers(sql, sort, limit, (page - 1) * limit);
  return { items: rows.map(toUser), totalItems: total, page, limit };
}
