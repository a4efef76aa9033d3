import { z } from 'zod';
import { enumQuery, timestamp } from './common';
import { flagSchema } from './moderation';
import { notificationSchema } from './notifications';
import { oauthAppSchema } from './oauth';
import { apiKeySchema, meSchema } from './users';
import { webhookSchema } from './webhooks';

/*
 * Leaving and taking one's data (DESIGN.md §20): erasure of an account, and the export of
 * everything the platform holds about it.
 */

/** `DELETE /users/me`: the account's password confirms it. */
export const eraseMeBody = z.strictObject({ password: z.string().min(1).max(200) });
export type EraseMeBody = z.output<typeof eraseMeBody>;

export const eraseQuery = z.object({
  content: enumQuery(['delete'])
    .optional()
    .describe('`delete` soft-deletes the posts and comments too; without it they stay, anonymised.'),
});
export type EraseQuery = z.output<typeof eraseQuery>;

/** The answer to an erasure: it goes on in every service through events. */
export const erasureSchema = z.strictObject({ status: z.literal('erasing') });
export type Erasure = z.infer<typeof erasureSchema>;

const id = z.int().min(1);

export const exportedPostSchema = z.strictObject({
  id,
  title: z.string(),
  slug: z.string(),
  content: z.string(),
  category_id: id.nullable(),
  tags: z.array(z.string()),
  is_hidden: z.boolean(),
  views: z.int(),
  likes: z.int(),
  replies: z.int(),
  created_at: timestamp,
  updated_at: timestamp,
  deleted_at: timestamp.nullable(),
});
export type ExportedPost = z.infer<typeof exportedPostSchema>;

export const exportedCommentSchema = z.strictObject({
  id,
  post_id: id,
  parent_id: id.nullable(),
  content: z.string(),
  is_hidden: z.boolean(),
  likes: z.int(),
  created_at: timestamp,
  updated_at: timestamp,
  deleted_at: timestamp.nullable(),
});
export type ExportedComment = z.infer<typeof exportedCommentSchema>;

export const exportedLikeSchema = z.strictObject({
  target_type: z.enum(['post', 'comment']),
  target_id: id,
  created_at: timestamp,
});
export type ExportedLike = z.infer<typeof exportedLikeSchema>;

export const exportedGrantSchema = z.strictObject({
  app_id: id,
  app_name: z.string(),
  scopes: z.array(z.string()),
  created_at: timestamp,
  revoked_at: timestamp.nullable(),
});
export type ExportedGrant = z.infer<typeof exportedGrantSchema>;

/** The parts of an export, in the order they are streamed; each service serves its own. */
export const EXPORT_PARTS = {
  users: ['profile', 'keys', 'oauth_apps', 'oauth_grants', 'notifications'],
  posts: ['posts', 'comments', 'likes', 'flags'],
  webhooks: ['webhooks'],
} as const;
export type PostsExportPart = (typeof EXPORT_PARTS.posts)[number];

/** `GET /users/me/export`: everything about the caller, never a secret (DESIGN.md §20). */
export const accountExportSchema = z.strictObject({
  exported_at: timestamp,
  profile: meSchema,
  keys: z.array(apiKeySchema),
  oauth_apps: z.array(oauthAppSchema),
  oauth_grants: z.array(exportedGrantSchema),
  notifications: z.array(notificationSchema),
  posts: z.array(exportedPostSchema),
  comments: z.array(exportedCommentSchema),
  likes: z.array(exportedLikeSchema),
  flags: z.array(flagSchema),
  webhooks: z.array(webhookSchema),
});
export type AccountExport = z.infer<typeof accountExportSchema>;
