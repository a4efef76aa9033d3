import { InvalidClientError, InvalidRequestError } from '@node-oauth/oauth2-server';

export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
  viaHeader: boolean;
}

// RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded
// (oauth4webapi, for one, sends `cpi_` as `cpi%5F`).
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new InvalidClientError('Invalid client: malformed credentials', { code: 401 });
  }
}

/** The id and secret of an HTTP Basic header, decoded; null when the header is not Basic at all. */
export function parseBasic(authorization: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new InvalidClientError('Invalid client: malformed Basic credentials', { code: 401 });
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

/**
 * The Basic header as @node-oauth/oauth2-server expects it: it reads the credentials raw, without the
 * form-decoding the RFC asks for, so they are decoded here and passed on plain.
 */
export function plainBasic(authorization: string | undefined): string | undefined {
  const basic = parseBasic(authorization);
  if (!basic) return authorization;
  return `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
}

/** HTTP Basic (client_secret_basic) or the body (client_secret_post); a public client sends its id alone. */
export function readClientCredentials(
  authorization: string | undefined,
  body: Record<string, string>,
): ClientCredentials {
  if (authorization) {
    const basic = parseBasic(authorization);
    if (!basic) throw new InvalidClientError('Invalid client: use HTTP Basic authentication', { code: 401 });
    if (body.client_secret !== undefined) {
      throw new InvalidRequestError('Invalid request: use one client authentication method, not two');
    }
    return { clientId: basic.id, clientSecret: basic.secret, viaHeader: true };
  }
  if (!body.client_id) throw new InvalidClientError('Invalid client: cannot retrieve client credentials');
  return { clientId: body.client_id, clientSecret: body.client_secret, viaHeader: false };
}
