import { ServiceUnavailableError, type Actor } from '@community/contracts';
import { signIdentity } from '@community/http-kit';
// Not Node's own fetch: Node 20's (undici 6) takes a connection closed in the middle of a chunked
// body for its end when the answer said `Connection: close`, as a retiring service's answers do, and
// a part cut short would be relayed as if whole. undici 7 reports it (test/integration/export-cut-short).
import { fetch, type Response } from 'undici';

/** Where the export reads the other services' parts, and the token their internal routes trust. */
export interface ExportSources {
  postsUrl: string;
  webhooksUrl: string;
  internalToken: string;
}

/**
 * One part of the export another service serves under /internal (a JSON array), asked with the
 * caller's identity signed as the gateway signs it; its body is read as it is relayed.
 */
export async function openPart(
  base: string,
  path: string,
  actor: Actor,
  token: string,
): Promise<AsyncIterable<Uint8Array>> {
  const headers = signIdentity(token, { method: 'GET', url: path, actor });
  let answer: Response;
  try {
    answer = await fetch(`${base}${path}`, { headers });
  } catch {
    throw new ServiceUnavailableError(
      'a service holding part of your data did not answer; try again shortly',
    );
  }
  if (answer.status !== 200 || !answer.body) {
    await answer.body?.cancel();
    throw new ServiceUnavailableError(`a service holding part of your data answered ${answer.status}`);
  }
  return answer.body as unknown as AsyncIterable<Uint8Array>;
}
