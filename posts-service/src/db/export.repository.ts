import type { Sql } from '@community/db';
import type { FlagRow } from './flags.repository';

/*
 * What posts-service holds about one account, read in batches on a cursor (DESIGN.md §20's export):
 * an account with 10,000 posts is never in memory at once.
 */

const BATCH = 200;

export interface ExportPostRow {
  id: number;
  title: string;
  slug: string;
  content: string;
  categoryId: number | null;
  tags: string[];
  isHidden: boolean;
  views: number;
  likes: number;
  replies: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface ExportCommentRow {
  id: number;
  postId: number;
  parentId: number | null;
  content: string;
  isHidden: boolean;
  likes: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface ExportLikeRow {
  targetType: 'post' | 'comment';
  targetId: number;
  createdAt: Date;
}

/** A flag the member filed, as the export shows it (who filed it goes without saying). */
export type ExportFlagRow = Omit<FlagRow, 'flaggerId'>;

export const postsOf = (sql: Sql, userId: number): AsyncIterable<ExportPostRow[]> =>
  sql<ExportPostRow[]>`
    select id, title, slug, content, category_id, tags, is_hidden, views, likes, replies, created_at,
           updated_at, deleted_at
    from posts where author_id = ${userId} order by id`.cursor(BATCH);

export const commentsOf = (sql: Sql, userId: number): AsyncIterable<ExportCommentRow[]> =>
  sql<ExportCommentRow[]>`
    select id, post_id, parent_id, content, is_hidden, likes, created_at, updated_at, deleted_at
    from comments where author_id = ${userId} order by id`.cursor(BATCH);

export const likesOf = (sql: Sql, userId: number): AsyncIterable<ExportLikeRow[]> =>
  sql<ExportLikeRow[]>`
    select 'post' as target_type, post_id as target_id, created_at from post_likes where user_id = ${userId}
    union all
    select 'comment', comment_id, created_at from comment_likes where user_id = ${userId}
    order by created_at`.cursor(BATCH);

export const flagsOf = (sql: Sql, userId: number): AsyncIterable<ExportFlagRow[]> =>
  sql<ExportFlagRow[]>`
    select id, target_type, target_id, reason, note, status, created_at
    from flags where flagger_id = ${userId} order by id`.cursor(BATCH);
