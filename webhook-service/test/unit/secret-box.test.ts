import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../src/domain/secret-box';

// Rotating SECRETS_KEY (DESIGN.md §16): the previous key opens, never seals.
describe('SecretBox with a previous key', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const sealedOld = new SecretBox(oldKey).seal('whsec_old');

  it('opens what the previous key sealed, says so, and seals with the current key only', () => {
    const box = new SecretBox(newKey, oldKey);
    expect(box.opened(sealedOld)).toEqual({ secret: 'whsec_old', current: false });
    const sealedNew = box.seal('whsec_new');
    expect(box.opened(sealedNew)).toEqual({ secret: 'whsec_new', current: true });
    expect(() => new SecretBox(oldKey).open(sealedNew)).toThrow();
  });

  it('without the previous key, what it sealed does not open; key ids name keys, not boxes', () => {
    expect(() => new SecretBox(newKey).open(sealedOld)).toThrow();
    expect(new SecretBox(newKey).keyId).toBe(new SecretBox(newKey, oldKey).keyId);
    expect(new SecretBox(newKey).keyId).not.toBe(new SecretBox(oldKey).keyId);
  });
});
