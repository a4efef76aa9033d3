import { MAX_ID, ValidationError } from '@community/contracts';
import { z } from 'zod';

/**
 * Which list a cursor walks: its name and what defines it (the filters and the sort, as one
 * string). A cursor is valid only for the list it came from.
 */
export interface CursorList {
  name: string;
  scope: string;
}

const payload = z.strictObject({
  v: z.literal(1),
  l: z.string(),
  s: z.string(),
  i: z.int().min(1).max(MAX_ID),
});

/**
 * An opaque cursor: base64url of the list it belongs to and the id of the last item seen. The
 * position is that item's place in the list's order, looked up by id (items are soft-deleted, so
 * the row outlives a delete). Not signed: a forged cursor can only reposition its caller within a
 * list the caller may read anyway.
 */
export function encodeCursor(list: CursorList, lastId: number): string {
  return Buffer.from(JSON.stringify({ v: 1, l: list.name, s: list.scope, i: lastId })).toString('base64url');
}

/** The id a cursor continues after; `400 validation_error` (field `cursor`) for anything else. */
export function decodeCursor(cursor: string, list: CursorList): number {
  let decoded: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('is not a cursor this API gave out');
  }
  const parsed = payload.safeParse(decoded);
  if (!parsed.success) throw invalidCursor('is not a cursor this API gave out');
  if (parsed.data.l !== list.name || parsed.data.s !== list.scope)
    throw invalidCursor('belongs to another list, or to this list with other filters or sort');
  return parsed.data.i;
}

export const invalidCursor = (problem: string) =>
  ValidationError.single('cursor', 'invalid_value', `cursor ${problem}`);
