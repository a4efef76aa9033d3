import { assertAdmin } from '@community/access';
import {
  ForbiddenError,
  NotFoundError,
  type Actor,
  type EraseMeBody,
  type EraseQuery,
  type Erasure,
} from '@community/contracts';
import type { Tx } from '@community/db';
import { commitWithEvents, enqueueEvent, type TxDeps } from '@community/events';
import {
  anonymiseUser,
  endCredentials,
  forgetAccountRecords,
  journalErasure,
  passwordHashOf,
} from '../../db/erasure.repository';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../passwords';
import { announceRevoked } from '../oauth/revocation';

/*
 * Erasure (DESIGN.md §20). This service forgets in the transaction of the request and journals the
 * erasure (id and time, for §16's restore); the others forget through `user.erased`, which waits in
 * the queue of a service that is down. `user.access_changed` drops the gateway's cached credentials
 * of the account, whose keys and tokens no longer resolve; `user.deleted` is the public event.
 */

const ERASING: Erasure = { status: 'erasing' };

/** The member erases their own account; the password confirms it. */
export async function eraseMe(
  deps: TxDeps,
  caller: { userId: number },
  body: EraseMeBody,
  query: EraseQuery,
): Promise<Erasure> {
  return commitWithEvents(deps, async (tx) => {
    const stored = await passwordHashOf(tx, caller.userId);
    // A missing account still pays for a hash: the answer takes as long either way.
    const valid = await verifyPassword(body.password, stored ?? (await DUMMY_HASH_PROMISE));
    if (!stored || !valid) throw new ForbiddenError('the password is not right');
    await eraseInTx(tx, caller.userId, query);
    return ERASING;
  });
}

/** An admin erases another account; an account erased already answers the same. */
export async function eraseUser(
  deps: TxDeps,
  actor: Actor,
  userId: number,
  query: EraseQuery,
): Promise<Erasure> {
  assertAdmin(actor, 'erase accounts');
  if (userId === actor.userId)
    throw new ForbiddenError('erase your own account with DELETE /users/me and your password');
  return commitWithEvents(deps, async (tx) => {
    if ((await passwordHashOf(tx, userId)) === null) throw new NotFoundError('user');
    await eraseInTx(tx, userId, query);
    return ERASING;
  });
}

/**
 * Forgets the account here and tells the others. Again for an erased account: `user.erased` goes out
 * once more (every consumer applies it idempotently), so a repeat can finish a stalled erasure; the
 * public `user.deleted` goes out once.
 */
async function eraseInTx(tx: Tx, userId: number, query: EraseQuery): Promise<void> {
  const first = await journalErasure(tx, userId);
  await anonymiseUser(tx, userId);
  await announceRevoked(tx, await endCredentials(tx, userId));
  await forgetAccountRecords(tx, userId);
  await enqueueEvent(tx, 'user.access_changed', { id: userId });
  await enqueueEvent(tx, 'user.erased', { id: userId, content: query.content ?? 'keep' });
  if (first) await enqueueEvent(tx, 'user.deleted', { id: userId });
}
