import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { RegistrationCheck } from '../domain/outbound';
import { isForbiddenAddress } from './forbidden-address';

export { isForbiddenAddress } from './forbidden-address';

export class ForbiddenDestinationError extends Error {
  readonly code = 'EFORBIDDENDEST';

  constructor(
    readonly host: string,
    readonly address?: string,
  ) {
    super(`${host}${address && address !== host ? ` (${address})` : ''} is not a public address`);
    this.name = 'ForbiddenDestinationError';
  }
}

/**
 * A `lookup` for node:http/https/net that refuses non-public destinations. The check runs when the
 * socket connects, not only at registration, so a name re-pointed at 127.0.0.1 later (DNS rebinding)
 * is still refused. Every resolved address must be public: with autoSelectFamily node may try any
 * of them. Node skips `lookup` for an IP-literal host, so callers must check those themselves.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = allowPrivate ? undefined : addresses.find((a) => isForbiddenAddress(a.address));
      if (refused) return callback(new ForbiddenDestinationError(hostname, refused.address), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(notFound(hostname), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * How long a registration waits for the host's name to resolve: the request answers well within the
 * gateway's upstream timeout however slow the name's DNS servers are (DESIGN.md §21).
 */
export const REGISTRATION_LOOKUP_TIMEOUT_MS = 3_000;

/** Validates a webhook URL when it is registered or changed; delivery checks again at connect time. */
export async function checkUrlForRegistration(
  url: string,
  allowPrivate: boolean,
): Promise<RegistrationCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('url must be a valid absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return refuse('url must use http or https');
  if (parsed.username || parsed.password) return refuse('url must not contain credentials');
  const host = hostOf(parsed);
  if (!host) return refuse('url must have a host');

  const addresses = await resolve(host);
  if (addresses === 'timeout')
    return refuse(`url host did not resolve within ${REGISTRATION_LOOKUP_TIMEOUT_MS / 1000} s`);
  if (addresses.length === 0) return refuse('url host does not resolve');
  if (!allowPrivate && addresses.some(isForbiddenAddress)) {
    return refuse('url must not point to a private or loopback address');
  }
  return { ok: true };
}

/** The URL's host as node's connect sees it: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

async function resolve(host: string): Promise<string[] | 'timeout'> {
  if (isIP(host) !== 0) return [host];
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'timeout'>((done) => {
    timer = setTimeout(() => done('timeout'), REGISTRATION_LOOKUP_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([dns.promises.lookup(host, { all: true }), late]);
    return found === 'timeout' ? found : found.map((a: LookupAddress) => a.address);
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
  }
}

function refuse(message: string): RegistrationCheck {
  return { ok: false, code: 'invalid_value', message };
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname,
  });
}
