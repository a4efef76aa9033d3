import type { ListTagsQuery, Tag } from '@community/contracts';
import type { Sql } from '@community/db';
import type { Page } from '@community/http-kit';
import { listTags as queryTags } from '../db/tags.repository';

/** GET /tags: the tags of live posts with their counts (DESIGN.md §11). */
export async function listTags(sql: Sql, { q, sort, page, limit }: ListTagsQuery): Promise<Page<Tag>> {
  const { rows, total } = await queryTags(sql, { prefix: q, sort, limit, offset: (page - 1) * limit });
  return {
    items: rows.map((row) => ({ name: row.name, post_count: row.postCount })),
    totalItems: total,
    page,
    limit,
  };
}
