import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildOpenApiDocument } from '@community/openapi';
import { sendSerialisedJson } from '../http/respond';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The document, generated once when the gateway starts and kept as the bytes it sends. */
export function publishedDocument(): Buffer {
  return Buffer.from(JSON.stringify(buildOpenApiDocument()));
}

export function sendDocument(req: IncomingMessage, res: ServerResponse, document: Buffer): void {
  // Public and the same for everyone: tools on other origins (editors, client generators) may fetch it.
  sendSerialisedJson(req, res, 200, document, {
    'Access-Control-Allow-Origin': '*',
    'Cache-Control': 'public, max-age=300',
  });
}
