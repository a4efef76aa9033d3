import type { ServerResponse } from 'node:http';
import { buildOpenApiDocument } from '@community/openapi';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The document, generated once when the gateway starts and kept as the bytes it sends. */
export function publishedDocument(): string {
  return JSON.stringify(buildOpenApiDocument());
}

export function sendDocument(res: ServerResponse, document: string): void {
  // Public and the same for everyone: tools on other origins (editors, client generators) may fetch it.
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(document));
  res.end(document);
}
