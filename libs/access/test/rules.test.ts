import { assertAdmin, assertCanChange, assertModerator, effectiveScopes } from '@community/access';
import { type Actor, type Role, type Scope } from '@community/contracts';

const as = (role: Role, scopes: Scope[], userId = 1): Actor => ({
  userId,
  role,
  scopes: effectiveScopes(role, scopes),
});
const code = (fn: () => void) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as { code: string }).code;
  }
};

describe('permissions', () => {
  it('lets an author change their own content with write', () => {
    expect(code(() => assertCanChange(as('member', ['write']), 1, 'post'))).toBe('ok');
    expect(code(() => assertCanChange(as('member', ['read']), 1, 'post'))).toBe('insufficient_scope');
  });

  it('forbids members from changing others, asks moderators for the moderate scope', () => {
    expect(code(() => assertCanChange(as('member', ['write', 'moderate']), 2, 'post'))).toBe('forbidden');
    expect(code(() => assertCanChange(as('moderator', ['write']), 2, 'post'))).toBe('insufficient_scope');
    expect(code(() => assertCanChange(as('moderator', ['write', 'moderate']), 2, 'post'))).toBe('ok');
    expect(code(() => assertCanChange(as('admin', ['write', 'moderate']), 2, 'post'))).toBe('ok');
  });

  it('never lets a scope exceed the role', () => {
    expect(effectiveScopes('member', ['read', 'moderate', 'admin', 'bogus'])).toEqual(new Set(['read']));
    expect(code(() => assertModerator(as('member', ['moderate']), 'pin'))).toBe('forbidden');
    expect(code(() => assertAdmin(as('moderator', ['admin']), 'create categories'))).toBe('forbidden');
    expect(code(() => assertAdmin(as('admin', ['write']), 'create categories'))).toBe('insufficient_scope');
    expect(code(() => assertAdmin(as('admin', ['admin']), 'create categories'))).toBe('ok');
  });
});
