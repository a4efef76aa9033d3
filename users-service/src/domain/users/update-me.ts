import { assertScope } from '@community/access';
import { NotFoundError, ValidationError, type Actor, type Me, type UpdateMeBody } from '@community/contracts';
import { enqueueEvent, commitWithEvents, type TxDeps } from '@community/events';
import { findUser, updateProfile } from '../../db/users.repository';
import { toMe } from './representations';
import { assertNotSuspended } from './suspension';

/**
 * Changes the caller's profile and tells the replicas (`user.updated`) when something really changed.
 * A suspended account is read-only (DESIGN.md §21), on the account pages as through the API.
 */
export async function updateMe(deps: TxDeps, actor: Actor, body: UpdateMeBody, base: string): Promise<Me> {
  assertScope(actor, 'write');
  const { userId } = actor;
  if (body.display_name === undefined && body.bio === undefined && body.avatar === undefined) {
    throw ValidationError.single('body', 'required', 'body must contain at least one field to change');
  }
  return commitWithEvents(deps, async (tx) => {
    await assertNotSuspended(tx, userId);
    const before = await findUser(tx, userId);
    if (!before) throw new NotFoundError('user');
    await updateProfile(tx, userId, { displayName: body.display_name, bio: body.bio, avatar: body.avatar });
    const after = (await findUser(tx, userId))!;
    const visibleChange = after.displayName !== before.displayName || after.avatar !== before.avatar;
    if (visibleChange) {
      await enqueueEvent(tx, 'user.updated', {
        id: after.id,
        username: after.username,
        display_name: after.displayName,
        avatar: after.avatar,
      });
    }
    return toMe(after, base);
  });
}
