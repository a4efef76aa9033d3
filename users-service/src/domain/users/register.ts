import { ConflictError, type RegisterBody } from '@community/contracts';
import { enqueueEvent, transaction, type TxDeps } from '@community/events';
import { recordEvent } from '../../db/throttle.repository';
import { findUser, insertUser, UniqueFieldTaken } from '../../db/users.repository';
import type { UserRow } from '../../db/rows';
import { hashPassword } from '../passwords';
import { assertUnderLimit } from '../throttle';

export const REGISTRATIONS_PER_HOUR_PER_IP = 20;

/** A new member account; its `user.registered` event commits with it. */
export async function registerUser(deps: TxDeps, body: RegisterBody, clientIp: string): Promise<UserRow> {
  const bucket = `register:${clientIp}`;
  await assertUnderLimit(
    deps.sql,
    bucket,
    REGISTRATIONS_PER_HOUR_PER_IP,
    3600,
    'too many registrations from this address; try again later',
  );
  const passwordHash = await hashPassword(body.password);
  const displayName = body.display_name ?? body.username;
  try {
    return await transaction(deps, async (tx) => {
      const id = await insertUser(tx, {
        username: body.username,
        email: body.email,
        passwordHash,
        displayName,
      });
      await recordEvent(tx, bucket);
      await enqueueEvent(tx, 'user.registered', { id, username: body.username, display_name: displayName });
      return (await findUser(tx, id))!;
    });
  } catch (err) {
    if (err instanceof UniqueFieldTaken) {
      throw new ConflictError(`this ${err.field} is already registered`, { field: err.field });
    }
    throw err;
  }
}
