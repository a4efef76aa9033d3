import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildOpenApiDocument } from '@community/openapi';
import { sendTagged, tagged, type TaggedBody } from '../http/conditional';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** The document, generated once when the gateway starts and kept as the bytes it sends. */
export function publishedDocument(): TaggedBody {
  return tagged(Buffer.from(JSON.stringify(buildOpenApiDocument())));
}

export function sendDocument(
  req: IncomingMessage,
  res: ServerResponse,
  document: TaggedBody,
  onNotModified: () => void,
): void {
  // Public and the same for everyone: tools on other origins (editors, client generators) may fetch it.
  sendTagged(req, res, document, onNotModified, {
    'Access-Control-Allow-Origin': '*',
    'Cache-Control': 'public, max-age=300',
  });
}
