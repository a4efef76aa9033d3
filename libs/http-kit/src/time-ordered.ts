import type { Request, Response } from 'express';
import { decodeCursor, encodeCursor, invalidCursor, type CursorList } from './cursor';
import { sendCursorPage, sendPage, type Page } from './envelope';

/** Up to `limit` items after a cursor, and whether more follow. */
export interface Slice<T> {
  items: T[];
  more: boolean;
}

/** What a repository's `limit + 1` rows say: the page, and whether there is more. */
export function sliceOf<T>(rows: T[], limit: number): Slice<T> {
  return { items: rows.slice(0, limit), more: rows.length > limit };
}

export interface TimeOrderedList<T> {
  list: CursorList;
  /** The parsed query: `cursor` and `limit` with the list's filters. */
  query: { cursor?: string; limit: number };
  /** The list by page, in the same order as `after` walks it. */
  byPage(): Promise<Page<T>>;
  /** The items after the one with this id, up to the query's limit. */
  after(id: number): Promise<Slice<T>>;
  /** False when the request's sort is not time-ordered: no cursor then (DESIGN.md §10). */
  walkable?: boolean;
  /** Where an item stands, as `after` takes it; its numeric `id` unless the list says otherwise. */
  position?: (item: T) => number;
}

/**
 * Answers a time-ordered list by `page` or by `cursor` (DESIGN.md §10). Either way the answer says
 * where a walk continues: a cursor costs what the first page costs, however deep, and every item
 * that existed when the walk began comes once, whatever is created or deleted meanwhile.
 */
export async function sendTimeOrdered<T extends object>(
  req: Request,
  res: Response,
  { list, query, byPage, after, walkable = true, position = idOf }: TimeOrderedList<T>,
): Promise<void> {
  const filters = query as Record<string, unknown>;
  if (query.cursor === undefined) {
    const page = await byPage();
    const last = page.items.at(-1);
    const more = walkable && last !== undefined && page.page * page.limit < page.totalItems;
    sendPage(req, res, { ...page, nextCursor: more ? encodeCursor(list, position(last)) : null }, filters);
    return;
  }
  if (Object.hasOwn(req.query, 'page')) throw invalidCursor('and page cannot be used together');
  if (!walkable) throw invalidCursor('walks only the time-ordered sort of this list');
  const { items, more } = await after(decodeCursor(query.cursor, list));
  const last = items.at(-1);
  const nextCursor = more && last ? encodeCursor(list, position(last)) : null;
  sendCursorPage(req, res, { items, limit: query.limit, nextCursor }, filters);
}

const idOf = (item: object) => (item as { id: number }).id;
