import { ForbiddenError, InsufficientScopeError } from './errors';

export const ROLES = ['member', 'moderator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = ['read', 'write', 'webhooks', 'keys', 'moderate', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope lets a key or an app do, in words for the account owner (pages and API reference). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'read everything public (every GET)',
  write: 'create and change your own posts, comments, likes and profile',
  webhooks: 'manage your webhooks',
  keys: 'create and revoke API keys and OAuth apps',
  moderate: 'pin, lock, edit and delete other people’s content',
  admin: 'manage categories, plans and roles',
};

/** Scopes a role may hold at all (DESIGN.md §5): effective rights = key scopes ∩ this. */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  member: ['read', 'write', 'webhooks', 'keys'],
  moderator: ['read', 'write', 'webhooks', 'keys', 'moderate'],
  admin: SCOPES,
};

/** Who is calling, as the gateway vouches for it. */
export interface Actor {
  userId: number;
  role: Role;
  scopes: ReadonlySet<Scope>;
  /** When the credential the caller presented stops working (null or absent: it does not expire). */
  expiresAt?: Date | null;
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

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
