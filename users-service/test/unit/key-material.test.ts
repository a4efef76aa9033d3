import { generateKey, hashKey, KEY_PATTERN } from '../../src/domain/keys/key-material';
import { lookup } from 'node:dns/promises';
import { DUMMY_HASH_PROMISE, hashPassword, verifyPassword } from '../../src/domain/passwords';

describe('API key material', () => {
  it('is cpk_ + 40 base62 characters, with a 12-character prefix and a SHA-256 hash', () => {
    const { key, prefix, hash } = generateKey();
    expect(key).toMatch(KEY_PATTERN);
    expect(prefix).toBe(key.slice(0, 12));
    expect(hash.equals(hashKey(key))).toBe(true);
    expect(hash).toHaveLength(32);
  });

  it('does not repeat and uses the whole alphabet', () => {
    const keys = Array.from({ length: 500 }, () => generateKey().key);
    expect(new Set(keys).size).toBe(500);
    const seen = new Set(keys.join('').slice(0));
    expect(seen.size).toBeGreaterThanOrEqual(62);
  });
});

describe('passwords', () => {
  it('verify only the right password, and salt every hash', async () => {
    const hash = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
    expect(await hashPassword('correct horse')).not.toBe(hash);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });

  it('leave libuv a thread for DNS: a host name resolves while many passwords are being hashed', async () => {
    await DUMMY_HASH_PROMISE;
    // A login burst. postgres.js resolves the database's host name (`postgres` in containers) on
    // the same thread pool for every new connection, within its 5 s connect_timeout.
    const finished: string[] = [];
    const hashes = Array.from({ length: 12 }, (_, i) =>
      hashPassword(`password ${i}`).then(() => finished.push('hash')),
    );
    await lookup('localhost').then(() => finished.push('lookup'));
    await Promise.all(hashes);
    expect(finished[0]).toBe('lookup');
  });
});
