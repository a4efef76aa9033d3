import { enqueueEvent, commitWithEvents, type TxDeps } from '@community/events';
import type { Logger } from '@community/logging';
import { findUserByUsername, insertUser, setRole, UniqueFieldTaken } from '../../db/users.repository';
import { hashPassword } from '../passwords';

export interface AdminAccount {
  username: string;
  password: string;
  email: string;
}

/**
 * Makes sure the configured admin exists with the admin role. An existing account keeps its
 * password: the variable bootstraps an account, it does not reset one on every start.
 */
export async function ensureAdmin(deps: TxDeps, admin: AdminAccount, logger: Logger): Promise<void> {
  const username = admin.username.trim().toLowerCase();
  const existing = await findUserByUsername(deps.sql, username);
  if (existing) {
    if (existing.role !== 'admin') {
      await commitWithEvents(deps, async (tx) => {
        await setRole(tx, existing.id, 'admin');
        await enqueueEvent(tx, 'user.access_changed', { id: existing.id });
      });
      logger.info({ username }, 'admin role granted to the configured admin account');
    }
    return;
  }
  const passwordHash = await hashPassword(admin.password);
  // Several replicas may start at once: whoever loses the insert race finds the admin there.
  const created = await commitWithEvents(deps, async (tx) => {
    const id = await insertUser(tx, {
      username,
      email: admin.email.trim().toLowerCase(),
      passwordHash,
      displayName: username,
      role: 'admin',
    });
    await enqueueEvent(tx, 'user.registered', { id, username, display_name: username });
    return true;
  }).catch((err: unknown) => {
    if (err instanceof UniqueFieldTaken && err.field === 'username') return false;
    throw err;
  });
  if (created) logger.info({ username }, 'admin account created');
}
