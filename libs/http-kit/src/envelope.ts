import type { Request, Response } from 'express';
import type { Pagination } from '@community/contracts';
import { publicBase } from './public-base';

export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json({ success: true, data });
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
  { items, totalItems, page, limit }: Page<T>,
  filters: Record<string, unknown> = {},
): void {
  const pagination: Pagination = {
    current_page: page,
    total_pages: Math.ceil(totalItems / limit),
    total_items: totalItems,
    per_page: limit,
  };
  res.setHeader('Link', linkHeader(req, pagination, filters));
  res.status(200).json({ success: true, data: items, pagination });
}

export function linkHeader(
  req: Request,
  { current_page, total_pages, per_page }: Pagination,
  filters: Record<string, unknown> = {},
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    const sent = Object.hasOwn(req.query, name);
    if (sent && name !== 'page' && name !== 'limit' && isScalar(value)) query.set(name, String(value));
  }
  const base = `${publicBase(req)}${req.baseUrl}${req.path}`;
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

const isScalar = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
