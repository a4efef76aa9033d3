import {
  toTimestamp,
  type ExportedComment,
  type ExportedLike,
  type ExportedPost,
  type PostsExportPart,
} from '@community/contracts';
import type { Sql } from '@community/db';
import type { JsonStream } from '@community/http-kit';
import * as rows from '../db/export.repository';
import { toFlag } from './moderation/flags';

const at = (date: Date | null) => (date ? toTimestamp(date) : null);

const toPost = (row: rows.ExportPostRow): ExportedPost => ({
  id: row.id,
  title: row.title,
  slug: row.slug,
  content: row.content,
  category_id: row.categoryId,
  tags: row.tags,
  is_hidden: row.isHidden,
  views: row.views,
  likes: row.likes,
  replies: row.replies,
  created_at: toTimestamp(row.createdAt),
  updated_at: toTimestamp(row.updatedAt),
  deleted_at: at(row.deletedAt),
});

const toComment = (row: rows.ExportCommentRow): ExportedComment => ({
  id: row.id,
  post_id: row.postId,
  parent_id: row.parentId,
  content: row.content,
  is_hidden: row.isHidden,
  likes: row.likes,
  created_at: toTimestamp(row.createdAt),
  updated_at: toTimestamp(row.updatedAt),
  deleted_at: at(row.deletedAt),
});

const toLike = (row: rows.ExportLikeRow): ExportedLike => ({
  target_type: row.targetType,
  target_id: row.targetId,
  created_at: toTimestamp(row.createdAt),
});

/** One part of an account's export, everything it ever wrote included (deleted and hidden too). */
export function exportPart(sql: Sql, part: PostsExportPart, userId: number, out: JsonStream): Promise<void> {
  switch (part) {
    case 'posts':
      return out.array(rows.postsOf(sql, userId), toPost);
    case 'comments':
      return out.array(rows.commentsOf(sql, userId), toComment);
    case 'likes':
      return out.array(rows.likesOf(sql, userId), toLike);
    case 'flags':
      return out.array(rows.flagsOf(sql, userId), toFlag);
  }
}
