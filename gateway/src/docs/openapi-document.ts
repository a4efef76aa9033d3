import type { Response } from 'express';
import { buildOpenApiDocument } from '@community/openapi';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The document, generated once when the gateway starts and kept as the bytes it sends. */
export function publishedDocument(): string {
  return JSON.stringify(buildOpenApiDocument());
}

export function sendDocument(res: Response, document: string): void {
  // Public and the same for everyone: tools on other origins (editors, client generators) may fetch it.
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.type('json').send(document);
}
