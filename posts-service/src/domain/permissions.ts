import { ForbiddenError, InsufficientScopeError, type Actor, type Scope } from '@community/contracts';

export function assertScope(actor: Actor, scope: Scope): void {
  if (!actor.scopes.has(scope)) throw new InsufficientScopeError(scope);
}

/** Authors change their own content with `write`; others need a moderator role and the `moderate` scope. */
export function assertCanChange(actor: Actor, ownerId: number, what: string): void {
  assertScope(actor, 'write');
  if (actor.userId === ownerId) return;
  if (actor.role === 'member')
    throw new ForbiddenError(`only the author or a moderator can change this ${what}`);
  assertScope(actor, 'moderate');
}

export function assertModerator(actor: Actor, action: string): void {
  if (actor.role === 'member') throw new ForbiddenError(`only moderators and admins can ${action}`);
  assertScope(actor, 'moderate');
}

export function assertAdmin(actor: Actor, action: string): void {
  if (actor.role !== 'admin') throw new ForbiddenError(`only admins can ${action}`);
  assertScope(actor, 'admin');
}
