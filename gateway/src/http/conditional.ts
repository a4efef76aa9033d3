import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { namesEtag } from '@community/http-kit';
import { sendSerialisedJson } from './respond';

/** A body the gateway answers itself, serialised once, with its strong ETag. */
export interface TaggedBody {
  bytes: Buffer;
  etag: string;
}

export function tagged(bytes: Buffer): TaggedBody {
  return { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url')}"` };
}

/**
 * Answers `body` with its ETag, or `304` without a body when the client has it already;
 * `onNotModified` runs before the 304's head is written (the refund of its budget).
 */
export function sendTagged(
  req: IncomingMessage,
  res: ServerResponse,
  body: TaggedBody,
  onNotModified: () => void,
  headers: Record<string, string> = {},
): void {
  if (namesEtag(req.headers['if-none-match'], body.etag)) {
    onNotModified();
    res.statusCode = 304;
    res.setHeader('ETag', body.etag);
    res.end();
    return;
  }
  sendSerialisedJson(req, res, 200, body.bytes, { ...headers, ETag: body.etag });
}

/**
 * Whether a `304` to this request is free (DESIGN.md §10, §21): only when `If-None-Match` names a tag
 * the client holds — `*` matches anything, so it would make every read free — and the request is no
 * search (`q`), whose work is done whatever the answer.
 */
export function freeWhenNotModified(req: IncomingMessage): boolean {
  const tags = req.headers['if-none-match'];
  if (!tags || tags.split(',').some((tag) => tag.trim() === '*')) return false;
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 || !new URLSearchParams(url.slice(query + 1)).has('q');
}
