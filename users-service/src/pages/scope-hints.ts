import type { Scope } from '@community/contracts';

/** What each scope lets a key or an app do, in words for the account owner. */
export const SCOPE_HINTS: Record<Scope, string> = {
  read: 'read everything public (every GET)',
  write: 'create and change your own posts, comments, likes and profile',
  webhooks: 'manage your webhooks',
  keys: 'create and revoke API keys and OAuth apps',
  moderate: 'pin, lock, edit and delete other people’s content',
  admin: 'manage categories, plans and roles',
};
