import { z } from 'zod';
import {
  cursorQuery,
  enumQuery,
  httpUrlOut,
  idField,
  intQuery,
  MAX_ID,
  paginationQuery,
  searchText,
  text,
  timestamp,
} from './common';

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
  /** Only on a hidden comment its author or a moderator reads (DESIGN.md §12). */
  is_hidden: z.literal(true).optional(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Comment = z.infer<typeof commentSchema>;

/** GET /comments: comments across posts (DESIGN.md §11). */
export const listAllCommentsQuery = z.object({
  ...paginationQuery,
  q: searchText
    .optional()
    .describe(
      'Search the comments as `GET /posts?q=` searches posts; results come best first and each carries `highlight`. 2–200 characters. A search serves its best 1,000 matches: `total_items` counts at most 1,000 and `pagination.total_items_capped` says when there are more.',
    ),
  author: intQuery(1, MAX_ID).optional().describe('Only comments by this user (id).'),
  post: intQuery(1, MAX_ID).optional().describe('Only comments on this post (id).'),
  ...cursorQuery,
});
export type ListAllCommentsQuery = z.output<typeof listAllCommentsQuery>;

/** A comment of `GET /comments`: with `q`, also where the search matched. */
export const commentListEntry = commentSchema.extend({
  highlight: z.strictObject({ content: z.string() }).optional(),
});
export type CommentListEntry = z.infer<typeof commentListEntry>;

export const commentLikeResult = z.strictObject({
  comment_id: z.int(),
  liked: z.boolean(),
  likes: z.int().min(0),
});
export type CommentLikeResult = z.infer<typeof commentLikeResult>;
