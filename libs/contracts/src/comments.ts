import { z } from 'zod';
import { enumQuery, httpUrlOut, idField, cursorQuery, paginationQuery, text, timestamp } from './common';

export const commentContent = text({ min: 1, max: 10_000 });

export const createCommentBody = z.strictObject({
  content: commentContent,
  parent_id: idField.nullable().optional(),
});
export type CreateCommentBody = z.output<typeof createCommentBody>;

export const updateCommentBody = z.strictObject({ content: commentContent });
export type UpdateCommentBody = z.output<typeof updateCommentBody>;

export const COMMENT_SORTS = ['oldest', 'newest'] as const;

export const listCommentsQuery = z.object({
  ...paginationQuery,
  sort: enumQuery(COMMENT_SORTS).default('oldest'),
  ...cursorQuery,
});
export type ListCommentsQuery = z.output<typeof listCommentsQuery>;

export const commentSchema = z.strictObject({
  id: z.int(),
  post_id: z.int(),
  parent_id: z.int().nullable(),
  content: z.string(),
  author: z.strictObject({ id: z.int(), username: z.string(), display_name: z.string(), avatar: httpUrlOut }),
  likes: z.int().min(0),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Comment = z.infer<typeof commentSchema>;

export const commentLikeResult = z.strictObject({
  comment_id: z.int(),
  liked: z.boolean(),
  likes: z.int().min(0),
});
export type CommentLikeResult = z.infer<typeof commentLikeResult>;
