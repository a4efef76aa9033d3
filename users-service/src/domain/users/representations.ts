import { DEFAULT_AVATAR, toTimestamp, type Me, type User } from '@community/contracts';
import type { UserRow } from '../../db/rows';

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    display_name: row.displayName,
    avatar: row.avatar ?? DEFAULT_AVATAR,
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

export function toMe(row: UserRow): Me {
  return { ...toUser(row), email: row.email, role: row.role, plan: row.plan };
}
