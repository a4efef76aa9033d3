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
