import type { IncomingHttpHeaders } from 'node:http';

/**
 * The OAuth client a token or revocation request names: HTTP Basic (RFC 6749 §2.3.1, form-encoded
 * parts) first, else the form body's `client_id`. Nothing is verified here — users-service does that.
 */
export function clientIdOf(headers: IncomingHttpHeaders, body: Buffer | undefined): string | null {
  const id = namedClient(headers, body);
  return id && id.length <= 200 ? id : null;
}

function namedClient(headers: IncomingHttpHeaders, body: Buffer | undefined): string | null {
  const basic = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return safeDecode(decoded.slice(0, colon));
  }
  if (!body || !/^application\/x-www-form-urlencoded/i.test(headers['content-type'] ?? '')) return null;
  return new URLSearchParams(body.toString('utf8')).get('client_id') || null;
}

function safeDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * Client ids users-service has accepted (a 200 from the token or revocation endpoint), remembered
 * for an hour. Only those are counted per client: an id nobody has vouched for is counted per
 * address, so inventing ids buys no budget.
 */
export class KnownClients {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 3_600_000,
    private readonly maxEntries = 10_000,
  ) {}

  has(clientId: string): boolean {
    const until = this.seen.get(clientId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.seen.delete(clientId);
    return false;
  }

  remember(clientId: string): void {
    this.seen.delete(clientId);
    if (this.seen.size >= this.maxEntries) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    this.seen.set(clientId, Date.now() + this.ttlMs);
  }
}
