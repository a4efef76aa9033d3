import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

export type TrustProxy = boolean | number | string;

/** express's "trust proxy" semantics without express: which hops may name the client. */
export function clientIpOf(trust: TrustProxy): (req: IncomingMessage) => string {
  if (trust === false) return (req) => req.socket.remoteAddress ?? 'unknown';
  const trusted =
    trust === true
      ? () => true
      : typeof trust === 'number'
        ? (_address: string, hop: number) => hop < trust
        : proxyaddr.compile(trust.split(',').map((value) => value.trim()));
  return (req) => proxyaddr(req, trusted);
}
