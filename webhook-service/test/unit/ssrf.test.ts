import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import {
  ForbiddenDestinationError,
  checkUrlForRegistration,
  guardedLookup,
  isForbiddenAddress,
  REGISTRATION_LOOKUP_TIMEOUT_MS,
} from '../../src/delivery/ssrf';

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.1', 'loopback /8'],
    ['10.1.2.3', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12 (start)'],
    ['172.31.255.255', 'private 172.16/12 (end)'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved 240/4'],
    ['192.0.2.10', 'documentation'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with zone'],
    ['fc00::1', 'IPv6 unique local'],
    ['fd12::1', 'IPv6 unique local (fd)'],
    ['fec0::1', 'IPv6 site-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex form'],
    ['64:ff9b::10.0.0.1', 'NAT64 of a private address'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo whose client is 127.0.0.1'],
    ['not an address', 'unparseable'],
    ['', 'empty'],
  ])('refuses %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ['172.32.0.1', 'just past 172.16/12'],
    ['8.8.8.8', 'public IPv4'],
    ['100.128.0.1', 'just past CGNAT'],
    ['2001:4860:4860::8888', 'public IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['64:ff9b::8.8.8.8', 'NAT64 of a public address'],
    ['2002:808:808::', '6to4 of a public address'],
  ])('allows %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('guardedLookup', () => {
  function lookup(hostname: string, allowPrivate: boolean, all: boolean) {
    return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>(
      (resolve) => {
        guardedLookup(allowPrivate)(hostname, { all }, (err, address) => resolve({ err, address }));
      },
    );
  }

  it.each([true, false])('refuses a name resolving to loopback (all: %s)', async (all) => {
    const { err } = await lookup('localhost', false, all);

    expect(err).toBeInstanceOf(ForbiddenDestinationError);
    expect(err).toMatchObject({ code: 'EFORBIDDENDEST', host: 'localhost', address: '127.0.0.1' });
  });

  it('refuses a private IP literal', async () => {
    const { err } = await lookup('10.0.0.1', false, false);

    expect(err).toBeInstanceOf(ForbiddenDestinationError);
  });

  it('answers with one address and its family when node asks for one', async () => {
    const result = await new Promise<unknown[]>((resolve) => {
      guardedLookup(true)('localhost', { all: false }, (...args) => resolve(args));
    });

    expect(result).toEqual([null, '127.0.0.1', 4]);
  });

  it('answers with every address when node asks for all', async () => {
    const { err, address } = await lookup('localhost', true, true);

    expect(err).toBeNull();
    expect(address).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('passes a public IP literal through', async () => {
    const { err, address } = await lookup('8.8.8.8', false, true);

    expect(err).toBeNull();
    expect(address).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('passes resolution failures through unchanged', async () => {
    const { err } = await lookup('nothing.invalid', true, false);

    expect(err?.code).toBe('ENOTFOUND');
  });
});

describe('checkUrlForRegistration', () => {
  const PRIVATE = 'url must not point to a private or loopback address';

  it.each([
    ['ftp://x', 'url must use http or https'],
    ['not a url', 'url must be a valid absolute URL'],
    ['http://user:pw@example.com', 'url must not contain credentials'],
    ['http://127.0.0.1/x', PRIVATE],
    ['http://[::1]:8080/', PRIVATE],
    ['http://localhost/', PRIVATE],
    ['http://169.254.169.254/latest', PRIVATE],
    ['http://[::ffff:10.0.0.1]/', PRIVATE],
    ['http://2130706433/', PRIVATE],
    ['https://nothing.invalid/hook', 'url host does not resolve'],
  ])('refuses %s', async (url, message) => {
    await expect(checkUrlForRegistration(url, false)).resolves.toEqual({
      ok: false,
      code: 'invalid_value',
      message,
    });
  });

  it.each(['http://8.8.8.8/hook', 'https://[2001:4860:4860::8888]:8443/hook'])(
    'accepts the public address %s',
    async (url) => {
      await expect(checkUrlForRegistration(url, false)).resolves.toEqual({ ok: true });
    },
  );

  it.each(['http://127.0.0.1:8080/hook', 'http://localhost/', 'http://[::1]/'])(
    'accepts %s when private networks are allowed',
    async (url) => {
      await expect(checkUrlForRegistration(url, true)).resolves.toEqual({ ok: true });
    },
  );

  it('refuses a host whose DNS never answers after 3 s, well within the gateway upstream timeout', async () => {
    jest.useFakeTimers();
    const lookup = jest.spyOn(dns.promises, 'lookup').mockReturnValue(new Promise(() => undefined));
    try {
      const check = checkUrlForRegistration('https://slow-dns.example/hook', false);
      await jest.advanceTimersByTimeAsync(REGISTRATION_LOOKUP_TIMEOUT_MS);
      await expect(check).resolves.toEqual({
        ok: false,
        code: 'invalid_value',
        message: 'url host did not resolve within 3 s',
      });
    } finally {
      lookup.mockRestore();
      jest.useRealTimers();
    }
  });

  it('still refuses credentials and other schemes when private networks are allowed', async () => {
    await expect(checkUrlForRegistration('http://u:p@127.0.0.1/', true)).resolves.toMatchObject({
      ok: false,
    });
    await expect(checkUrlForRegistration('file:///etc/passwd', true)).resolves.toMatchObject({ ok: false });
  });
});
