import {
  ForbiddenError,
  InsufficientScopeError,
  isScope,
  SCOPES,
  type Actor,
  type Role,
  type Scope,
} from '@community/contracts';

/*
 * Who may do what (DESIGN.md §5). The shapes (roles, scopes, the actor) are contracts; these are the
 * rules over them, the same in every service.
 */

/** Scopes a role may hold at all (DESIGN.md §5): effective rights = key scopes ∩ this. */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  member: ['read', 'write', 'webhooks', 'keys'],
  moderator: ['read', 'write', 'webhooks', 'keys', 'moderate'],
  admin: SCOPES,
};

export function effectiveScopes(role: Role, scopes: Iterable<string>): Set<Scope> {
  const allowed = new Set<string>(ROLE_SCOPES[role]);
  return new Set([...scopes].filter((scope): scope is Scope => isScope(scope) && allowed.has(scope)));
}

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
