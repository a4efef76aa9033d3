import {
  DEFAULT_AVATAR,
  toTimestamp,
  type Category,
  type Comment,
  type PostDetail,
  type PostListItem,
} from '@community/contracts';
import type { CategoryRow, CommentRow, PostRow } from '../db/rows';

interface AuthorColumns {
  authorId: number;
  authorUsername: string | null;
  authorDisplayName: string | null;
  authorAvatar: string | null;
}

/**
 * The author as the replica knows it. Until users-service's event arrives the post still renders,
 * with placeholder names that the event later replaces.
 */
function author(row: AuthorColumns) {
  return {
    id: row.authorId,
    username: row.authorUsername ?? `user_${row.authorId}`,
    display_name: row.authorDisplayName ?? `User ${row.authorId}`,
    avatar: row.authorAvatar ?? DEFAULT_AVATAR,
  };
}

export function toListItem(row: PostRow): PostListItem {
  const { avatar: _avatar, ...summary } = author(row);
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    content: row.content,
    author: summary,
    category: { id: row.categoryId, name: row.categoryName ?? '' },
    views: row.views,
    likes: row.likes,
    replies: row.replies,
    created_at: toTimestamp(row.createdAt),
    updated_at: toTimestamp(row.updatedAt),
  };
}

export function toDetail(row: PostRow): PostDetail {
  return {
    ...toListItem(row),
    author: author(row),
    category: { id: row.categoryId, name: row.categoryName ?? '', slug: row.categorySlug ?? '' },
    tags: row.tags,
    is_pinned: row.isPinned,
    is_locked: row.isLocked,
  };
}

export function toComment(row: CommentRow): Comment {
  return {
    id: row.id,
    post_id: row.postId,
    parent_id: row.parentId,
    content: row.content,
    author: author(row),
    likes: row.likes,
    created_at: toTimestamp(row.createdAt),
    updated_at: toTimestamp(row.updatedAt),
  };
}

export function toCategory(row: CategoryRow): Category {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    post_count: row.postCount,
    created_at: toTimestamp(row.createdAt),
    updated_at: toTimestamp(row.updatedAt),
  };
}
