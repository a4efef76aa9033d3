import type { Request, Response } from 'express';
import type { Pagination } from '@community/contracts';

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

/** The list envelope plus an RFC 8288 `Link` header whose URLs keep the request's filters and limit. */
export function sendPage<T>(req: Request, res: Response, { items, totalItems, page, limit }: Page<T>): void {
  const pagination: Pagination = {
    current_page: page,
    total_pages: Math.ceil(totalItems / limit),
    total_items: totalItems,
    per_page: limit,
  };
  const link = linkHeader(req, pagination);
  if (link) res.setHeader('Link', link);
  res.status(200).json({ success: true, data: items, pagination });
}

export function linkHeader(req: Request, { current_page, total_pages, per_page }: Pagination): string {
  const base = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  const at = (page: number, rel: string) => {
    const url = new URL(base);
    url.searchParams.set('page', String(page));
    url.searchParams.set('limit', String(per_page));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const last = Math.max(total_pages, 1);
  const links = [at(1, 'first')];
  if (current_page > 1) links.push(at(Math.min(current_page - 1, last), 'prev'));
  if (current_page < total_pages) links.push(at(current_page + 1, 'next'));
  links.push(at(last, 'last'));
  return links.join(', ');
}
