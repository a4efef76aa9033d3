import {
  defaultAvatarUrl,
  toTimestamp,
  type Category,
  type Comment,
  type PostDetail,
  type PostListItem,
} from '@community/contracts';
import type { AuthorColumns, CategoryRow, CommentRow, PostRow } from '../db/rows';

/**
 * The author as the replica knows it. Until users-service's event arrives the post still renders,
 * with placeholder names that the event later replaces.
 */
function authorSummary(row: AuthorColumns) {
  return {
    id: row.authorId,
    username: row.authorUsername ?? `user_${row.authorId}`,
    display_name: row.authorDisplayName ?? `User ${row.authorId}`,
  };
}

/** `base`: where clients reach us (PUBLIC_BASE_URL or the request's host), for the default avatar. */
function author(row: AuthorColumns, base: string) {
  return { ...authorSummary(row), avatar: row.authorAvatar ?? defaultAvatarUrl(base, row.authorId) };
}

export function toListItem(row: PostRow): PostListItem {
  const summary = authorSummary(row);
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

export function toDetail(row: PostRow, base: string): PostDetail {
  return {
    ...toListItem(row),
    author: author(row, base),
    category: { id: row.categoryId, name: row.categoryName ?? '', slug: row.categorySlug ?? '' },
    tags: row.tags,
    is_pinned: row.isPinned,
    is_locked: row.isLocked,
    ...(row.isHidden ? { is_hidden: true as const } : {}),
  };
}

export function toComment(row: CommentRow, base: string): Comment {
  return {
    id: row.id,
    post_id: row.postId,
    parent_id: row.parentId,
    content: row.content,
    author: author(row, base),
    likes: row.likes,
    ...(row.isHidden ? { is_hidden: true as const } : {}),
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
