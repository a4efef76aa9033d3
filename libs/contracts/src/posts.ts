import { z } from 'zod';
import {
  enumQuery,
  httpUrlOut,
  idField,
  intQuery,
  MAX_ID,
  cursorQuery,
  paginationQuery,
  searchText,
  text,
  timestamp,
} from './common';
import { ValidationError } from './errors';

export const POST_SORTS = ['latest', 'popular', 'trending'] as const;
export type PostSort = (typeof POST_SORTS)[number];

/** What `GET /posts` asks for: a search (`q`) by relevance or newest first, or the list in a sort. */
export type PostOrder = { q: string; sort: 'relevance' | 'latest' } | { q?: undefined; sort: PostSort };

/**
 * The order a list request means (DESIGN.md §11): `relevance` by default with `q`, `latest`
 * without. `relevance` without `q`, and `popular` or `trending` with it, are validation errors.
 */
export function postOrder({ q, sort }: { q?: string; sort?: PostSort | 'relevance' }): PostOrder {
  if (q === undefined) {
    if (sort === 'relevance') throw ValidationError.single('sort', 'invalid_value', 'sort=relevance needs q');
    return { sort: sort ?? 'latest' };
  }
  if (sort === 'popular' || sort === 'trending')
    throw ValidationError.single('sort', 'invalid_value', 'with q, sort is relevance or latest');
  return { q, sort: sort ?? 'relevance' };
}

export const MAX_TAGS = 10;
export const TAG_PATTERN = /^[a-z0-9-]{1,32}$/;

export const lowerCaseTag = z.string().transform((raw, ctx) => {
  const value = raw.trim().toLowerCase();
  if (value.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'must not be empty', params: { code: 'too_short' } });
    return z.NEVER;
  }
  if (value.length > 32) {
    ctx.addIssue({ code: 'custom', message: 'must be at most 32 characters', params: { code: 'too_long' } });
    return z.NEVER;
  }
  if (!TAG_PATTERN.test(value)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must contain only letters, digits and dashes',
      params: { code: 'invalid_value' },
    });
    return z.NEVER;
  }
  return value;
});
const tag = lowerCaseTag.meta({
  minLength: 1,
  maxLength: 32,
  description: 'Letters, digits and dashes; stored lower-case.',
});

/** Lower-cased tags, duplicates dropped in first-seen order. */
export const tagsField = z
  .array(tag)
  .max(MAX_TAGS, `must have at most ${MAX_TAGS} tags`)
  .transform((tags) => [...new Set(tags)]);

export const postTitle = text({ min: 1, max: 300 });
export const postContent = text({ min: 1, max: 50_000 });

export const createPostBody = z.strictObject({
  title: postTitle,
  content: postContent,
  category_id: idField,
  tags: tagsField.optional(),
});
export type CreatePostBody = z.output<typeof createPostBody>;

export const updatePostBody = z.strictObject({
  title: postTitle.optional(),
  content: postContent.optional(),
  category_id: idField.optional(),
  tags: tagsField.optional(),
  is_pinned: z.boolean().optional(),
  is_locked: z.boolean().optional(),
});
export type UpdatePostBody = z.output<typeof updatePostBody>;

export const listPostsQuery = z.object({
  ...paginationQuery,
  category: intQuery(1, MAX_ID).optional(),
  author: intQuery(1, MAX_ID).optional(),
  tag: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(z.string().regex(TAG_PATTERN, 'must be a tag of letters, digits and dashes'))
    .optional(),
  q: searchText
    .optional()
    .describe(
      'Search titles, tags and content: words (stemmed, accents ignored), `"a phrase"`, `-excluded`, `a or b`. 2–200 characters. Each item then carries `highlight`. A search serves its best 1,000 matches: `total_items` counts at most 1,000 and `pagination.total_items_capped` says when there are more.',
    ),
  // Without a default: `relevance` with `q`, `latest` without (resolvePostSort).
  sort: enumQuery([...POST_SORTS, 'relevance']).optional(),
  ...cursorQuery,
});
export type ListPostsQuery = z.output<typeof listPostsQuery>;

const authorSummary = z.strictObject({ id: z.int(), username: z.string(), display_name: z.string() });

export const postListItem = z.strictObject({
  id: z.int(),
  title: z.string(),
  slug: z.string(),
  content: z.string(),
  author: authorSummary,
  category: z.strictObject({ id: z.int(), name: z.string() }),
  views: z.int().min(0),
  likes: z.int().min(0),
  replies: z.int().min(0),
  created_at: timestamp,
  updated_at: timestamp,
});
export type PostListItem = z.infer<typeof postListItem>;

/** Where a search matched: text with every match in `<mark>…</mark>` and everything else HTML-escaped. */
export const postHighlight = z.strictObject({ title: z.string(), content: z.string() });

/** An item of `GET /posts`: with `q`, also its highlight. */
export const postListEntry = postListItem.extend({ highlight: postHighlight.optional() });
export type PostListEntry = z.infer<typeof postListEntry>;

export const postDetail = postListItem.extend({
  author: authorSummary.extend({ avatar: httpUrlOut }),
  category: z.strictObject({ id: z.int(), name: z.string(), slug: z.string() }),
  tags: z.array(z.string()),
  is_pinned: z.boolean(),
  is_locked: z.boolean(),
  /** Only on a hidden post its author or a moderator reads (DESIGN.md §12). */
  is_hidden: z.literal(true).optional(),
});
export type PostDetail = z.infer<typeof postDetail>;

export const likeResult = z.strictObject({ post_id: z.int(), liked: z.boolean(), likes: z.int().min(0) });
export type LikeResult = z.infer<typeof likeResult>;
