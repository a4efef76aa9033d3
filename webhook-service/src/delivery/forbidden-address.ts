import ipaddr from 'ipaddr.js';

// An allowlist rather than a blocklist: every range ipaddr.js names (private, loopback, documentation,
// benchmarking, site-local, …) is refused, so a range added by a future ipaddr.js release fails closed.
// AS112 and AMT are public anycast services, reachable like any other public host.
const PUBLIC_V4_RANGES = new Set(['unicast', 'as112', 'amt']);
const PUBLIC_V6_RANGES = new Set(['unicast', 'as112v6', 'amt']);

// 2000::/3 is the only IPv6 space IANA hands out for global unicast; anything outside it that is not an
// IPv4 embedding handled below is not a webhook receiver.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * True when a delivery must not connect to `address`: anything that is not a public unicast address,
 * including IPv6 forms that carry a non-public IPv4 address inside them. Unparseable input is refused.
 */
export function isForbiddenAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return true;
  }
  return parsed.kind() === 'ipv4'
    ? isForbiddenV4(parsed as ipaddr.IPv4)
    : isForbiddenV6(parsed as ipaddr.IPv6);
}

function isForbiddenV4(address: ipaddr.IPv4): boolean {
  return !PUBLIC_V4_RANGES.has(address.range());
}

function isForbiddenV6(address: ipaddr.IPv6): boolean {
  const embedded = embeddedV4(address);
  if (embedded !== undefined) return embedded.length === 0 || embedded.some(isForbiddenV4);
  return !address.match(GLOBAL_UNICAST_V6) || !PUBLIC_V6_RANGES.has(address.range());
}

/**
 * The IPv4 addresses a translating or tunnelling IPv6 address reaches, so 6to4, Teredo, NAT64 and
 * mapped forms cannot smuggle a private IPv4 destination past the check. `undefined` when the address
 * embeds nothing; an empty list when it embeds something we cannot locate and must therefore refuse.
 */
function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const p = address.parts;
  // IPv4-compatible ::a.b.c.d (deprecated, but a sit tunnel still delivers it to a.b.c.d). ipaddr.js
  // reads the dotted form as IPv4-mapped while resolvers print it as ::7f00:1; both end up here or above.
  if (p.slice(0, 6).every((part) => part === 0)) return [v4(p[6], p[7])];
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [v4(p[6], p[7])];
    case 'rfc6052':
      // 64:ff9b::/96 carries the address in its last 32 bits; the local-use 64:ff9b:1::/48 may place it
      // anywhere the operator chose, so it is refused outright.
      return p[2] === 0 ? [v4(p[6], p[7])] : [];
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4(p[1], p[2])];
    case 'teredo': // 2001:0:server:flags:port:~client — the client address is stored inverted
      return [v4(p[2], p[3]), v4(~(p[6] ?? 0), ~(p[7] ?? 0))];
    default:
      return undefined;
  }
}

function v4(high: number | undefined, low: number | undefined): ipaddr.IPv4 {
  const h = (high ?? 0) & 0xffff;
  const l = (low ?? 0) & 0xffff;
  return new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]);
}
