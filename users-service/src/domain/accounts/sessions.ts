import { randomBytes } from 'node:crypto';
import { UnauthorizedError, type Role } from '@community/contracts';
import type { Sql } from '@community/db';
import { deleteSession, findSession as querySession, insertSession } from '../../db/sessions.repository';
import { clearBucket } from '../../db/throttle.repository';
import { findUserByUsername } from '../../db/users.repository';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../passwords';
import { reserveFromLimit, type Limit } from '../throttle';
import { csrfTokenOf, sha256 } from './secret-hash';

export const SESSION_TTL_SECONDS = 7 * 24 * 3600;
export const FAILED_LOGINS_ALLOWED = 10;
export const FAILED_LOGIN_WINDOW_SECONDS = 15 * 60;

export interface Session {
  userId: number;
  username: string;
  displayName: string;
  role: Role;
  /** For the forms this session's pages render; never stored. */
  csrfToken: string;
  /** What is stored, and what a submitted token is compared with. */
  csrfHash: Buffer;
}

const sessionId = sha256;

/**
 * The failed-login throttle of one account from one address. The login form and the erasure of an
 * account (DESIGN.md §20), both of which check the password, count toward the same one.
 */
export function failedLoginLimit(username: string, clientIp: string): Limit {
  return {
    bucket: `login:${username.trim().toLowerCase()}:${clientIp}`,
    max: FAILED_LOGINS_ALLOWED,
    windowSeconds: FAILED_LOGIN_WINDOW_SECONDS,
    message: 'too many failed logins; try again later',
  };
}

/**
 * Checks the password and opens a session. Ten failures within 15 minutes for one account from one
 * address lock that pair out for the rest of the window, even with the right password.
 *
 * Every attempt is counted as a failure before the password is checked, and the count is decided
 * and recorded in one step: of any number of parallel attempts at most ten reach scrypt. A right
 * password clears the count.
 */
export async function login(
  sql: Sql,
  credentials: { username: string; password: string },
  clientIp: string,
): Promise<{ token: string; session: Session }> {
  const limit = failedLoginLimit(credentials.username, clientIp);
  await reserveFromLimit(sql, limit);
  const user = await findUserByUsername(sql, credentials.username.trim().toLowerCase());
  const valid = await verifyPassword(credentials.password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
  if (!user || !valid) throw new UnauthorizedError('wrong username or password');
  await clearBucket(sql, limit.bucket);
  const token = randomBytes(32).toString('base64url');
  const csrfToken = csrfTokenOf(token);
  const csrfHash = sha256(csrfToken);
  await insertSession(sql, {
    id: sessionId(token),
    userId: user.id,
    csrfHash,
    expiresAt: new Date(Date.now() + SESSION_TTL_SECONDS * 1000),
  });
  return {
    token,
    session: {
      userId: user.id,
      username: user.username,
      displayName: user.displayName,
      role: user.role,
      csrfToken,
      csrfHash,
    },
  };
}

export async function findSession(sql: Sql, token: string | undefined): Promise<Session | null> {
  if (!token || token.length > 200) return null;
  const row = await querySession(sql, sessionId(token));
  if (!row) return null;
  return {
    userId: row.userId,
    username: row.username,
    displayName: row.displayName,
    role: row.role,
    csrfToken: csrfTokenOf(token),
    csrfHash: row.csrfHash,
  };
}

export async function logout(sql: Sql, token: string | undefined): Promise<void> {
  if (token) await deleteSession(sql, sessionId(token));
}
