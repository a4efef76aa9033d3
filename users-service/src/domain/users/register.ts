import { ConflictError, type RegisterBody } from '@community/contracts';
import { enqueueEvent, commitWithEvents, type TxDeps } from '@community/events';
import { findUser, insertUser, UniqueFieldTaken } from '../../db/users.repository';
import type { UserRow } from '../../db/rows';
import { hashPassword } from '../passwords';
import { assertUnderLimit, reserveFromLimit, takeFromLimit, type Limit } from '../throttle';

/** The default of REGISTRATIONS_PER_HOUR_PER_IP (a stack being seeded with demo members raises it). */
export const REGISTRATIONS_PER_HOUR_PER_IP = 20;

/**
 * A new member account; its `user.registered` event commits with it. The address's registration is
 * counted in the same transaction, under the address's lock, so parallel requests cannot pass the
 * cap. A taken username or email rolls that back, so it is counted again on its own: otherwise the
 * 409 would tell anyone which emails have accounts, without limit.
 */
export async function registerUser(
  deps: TxDeps & { registrationsPerHour?: number },
  body: RegisterBody,
  clientIp: string,
): Promise<UserRow> {
  const limit: Limit = {
    bucket: `register:${clientIp}`,
    max: deps.registrationsPerHour ?? REGISTRATIONS_PER_HOUR_PER_IP,
    windowSeconds: 3600,
    message: 'too many registrations from this address; try again later',
  };
  // A cheap early answer before scrypt; the decision that counts is taken below.
  await assertUnderLimit(deps.sql, limit);
  const passwordHash = await hashPassword(body.password);
  const displayName = body.display_name ?? body.username;
  try {
    return await commitWithEvents(deps, async (tx) => {
      await takeFromLimit(tx, limit);
      const id = await insertUser(tx, {
        username: body.username,
        email: body.email,
        passwordHash,
        displayName,
      });
      await enqueueEvent(tx, 'user.registered', { id, username: body.username, display_name: displayName });
      return (await findUser(tx, id))!;
    });
  } catch (err) {
    if (err instanceof UniqueFieldTaken) {
      await reserveFromLimit(deps.sql, limit);
      throw new ConflictError(`this ${err.field} is already registered`, { field: err.field });
    }
    throw err;
  }
}
