import { z } from 'zod';
import { enumQuery, paginationQuery } from './common';
import { lowerCaseTag } from './posts';

export const TAG_SORTS = ['popular', 'name'] as const;

/** GET /tags (DESIGN.md §11). */
export const listTagsQuery = z.object({
  ...paginationQuery,
  q: lowerCaseTag
    .meta({ minLength: 1, maxLength: 32 })
    .optional()
    .describe('Only tags that start with this (case-insensitive; letters, digits and dashes).'),
  sort: enumQuery(TAG_SORTS).default('popular'),
});
export type ListTagsQuery = z.output<typeof listTagsQuery>;

/** A tag and how many live posts carry it. */
export const tagSchema = z.strictObject({ name: z.string(), post_count: z.int().min(0) });
export type Tag = z.infer<typeof tagSchema>;
