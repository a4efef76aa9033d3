import { z } from 'zod';
import { paginationQuery, text, timestamp } from './common';

export const createCategoryBody = z.strictObject({
  name: text({ min: 1, max: 50 }),
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters and digits joined by dashes')
    .max(60, 'must be at most 60 characters')
    .optional(),
  description: text({ max: 500 }).optional(),
});
export type CreateCategoryBody = z.output<typeof createCategoryBody>;

export const updateCategoryBody = createCategoryBody.partial();
export type UpdateCategoryBody = z.output<typeof updateCategoryBody>;

export const listCategoriesQuery = z.object({ ...paginationQuery });

export const categorySchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  post_count: z.int().min(0),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Category = z.infer<typeof categorySchema>;
