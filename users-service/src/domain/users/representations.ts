import { defaultAvatarUrl, toTimestamp, type Me, type User } from '@community/contracts';
import type { UserRow } from '../../db/rows';

/** `base`: where clients reach us (PUBLIC_BASE_URL or the request's host), for the default avatar's URL. */
export function toUser(row: UserRow, base: string): User {
  return {
    id: row.id,
    username: row.username,
    display_name: row.displayName,
    avatar: row.avatar ?? defaultAvatarUrl(base, row.id),
    bio: row.bio,
    reputation: row.reputation,
    badges: row.badges.map(({ id, name, icon }) => ({ id, name, icon })),
    // sums may dip below zero while events arrive out of order; never show that
    stats: {
      posts: Math.max(0, row.postsCount),
      comments: Math.max(0, row.commentsCount),
      likes_received: Math.max(0, row.likesReceived),
    },
    joined_at: toTimestamp(row.createdAt),
  };
}

export function toMe(row: UserRow, base: string): Me {
  return { ...toUser(row, base), email: row.email, role: row.role, plan: row.plan };
}
