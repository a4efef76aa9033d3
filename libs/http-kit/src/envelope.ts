import type { Request, Response } from 'express';
import type { Pagination } from '@community/contracts';
import { publicBase } from './public-base';

export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json(envelopeOf(data));
}

const envelopeOf = (data: unknown) => ({ success: true, data });

/**
 * For a read that changes something when answered (a post's views): answers `304` when the client's
 * `If-None-Match` names `data` as {@link sendData} would send it now, and says so; otherwise sends
 * nothing, and the caller answers. The tag is express's strong ETag over the very bytes `res.json`
 * would write (DESIGN.md §10), so the two can never disagree. A request without `If-None-Match` can
 * never be answered 304 (no `If-Modified-Since` either: no answer here has a `Last-Modified`), so
 * it costs no serialisation and no hash here: the one `res.json` makes, over the bytes it sends, is
 * the tag the client gets.
 */
export function answeredNotModified(req: Request, res: Response, data: unknown): boolean {
  if (!req.headers['if-none-match']) return false;
  const etagOf = req.app.get('etag fn') as ((body: string, encoding: 'utf8') => string) | undefined;
  if (!etagOf) return false;
  res.setHeader('ETag', etagOf(JSON.stringify(envelopeOf(data)), 'utf8'));
  if (req.fresh) {
    res.status(304).end();
    return true;
  }
  res.removeHeader('ETag');
  return false;
}

export function sendCreated(res: Response, data: unknown, location: string): void {
  res.location(location);
  sendData(res, data, 201);
}

export interface Page<T> {
  items: T[];
  totalItems: number;
  page: number;
  limit: number;
  /** On a time-ordered list: where a cursor walk continues after this page (null: nothing more). */
  nextCursor?: string | null;
  /** On a search: whether it matches more than the SEARCH_CAP that totalItems counts. */
  totalCapped?: boolean;
}

/** A page of a time-ordered list asked by cursor (DESIGN.md §10). */
export interface CursorPage<T> {
  items: T[];
  limit: number;
  nextCursor: string | null;
}

/**
 * The list envelope plus an RFC 8288 `Link` header. Its URLs carry only `page`, `limit` and the
 * list's documented filters the request used (`filters`: the parsed query, so the values are the
 * validated ones), never whatever else a client appended: a query string can never make a response
 * header large (DESIGN.md §9).
 */
export function sendPage<T>(
  req: Request,
  res: Response,
  { items, totalItems, page, limit, nextCursor, totalCapped }: Page<T>,
  filters: Record<string, unknown> = {},
): void {
  const pagination: Pagination = {
    current_page: page,
    total_pages: Math.ceil(totalItems / limit),
    total_items: totalItems,
    per_page: limit,
    ...(totalCapped === undefined ? {} : { total_items_capped: totalCapped }),
  };
  res.setHeader('Link', linkHeader(req, pagination, filters));
  const withCursor = nextCursor === undefined ? pagination : { ...pagination, next_cursor: nextCursor };
  res.status(200).json({ success: true, data: items, pagination: withCursor });
}

/** A cursor page: `{per_page, next_cursor}` and a `Link` `rel="next"` carrying the cursor. */
export function sendCursorPage<T>(
  req: Request,
  res: Response,
  { items, limit, nextCursor }: CursorPage<T>,
  filters: Record<string, unknown> = {},
): void {
  if (nextCursor !== null) {
    const query = listQuery(req, filters);
    query.set('cursor', nextCursor);
    query.set('limit', String(limit));
    res.setHeader('Link', `<${listBase(req)}?${query.toString()}>; rel="next"`);
  }
  res
    .status(200)
    .json({ success: true, data: items, pagination: { per_page: limit, next_cursor: nextCursor } });
}

export function linkHeader(
  req: Request,
  { current_page, total_pages, per_page }: Pagination,
  filters: Record<string, unknown> = {},
): string {
  const query = listQuery(req, filters);
  const base = listBase(req);
  const at = (page: number, rel: string) => {
    query.set('page', String(page));
    query.set('limit', String(per_page));
    return `<${base}?${query.toString()}>; rel="${rel}"`;
  };
  const last = Math.max(total_pages, 1);
  const links = [at(1, 'first')];
  if (current_page > 1) links.push(at(Math.min(current_page - 1, last), 'prev'));
  if (current_page < total_pages) links.push(at(current_page + 1, 'next'));
  links.push(at(last, 'last'));
  return links.join(', ');
}

/** The documented filters the request used (their validated values), nothing else it appended. */
function listQuery(req: Request, filters: Record<string, unknown>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    const sent = Object.hasOwn(req.query, name);
    if (sent && !POSITION.has(name) && isScalar(value)) query.set(name, String(value));
  }
  return query;
}

const POSITION = new Set(['page', 'limit', 'cursor']);
const listBase = (req: Request) => `${publicBase(req)}${req.baseUrl}${req.path}`;

const isScalar = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
