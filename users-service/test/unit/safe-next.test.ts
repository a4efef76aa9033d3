import { safeNext } from '../../src/pages/navigation';

describe('where login goes next', () => {
  it.each([
    ['/account/settings', '/account/settings'],
    ['/account/settings/apps?tab=authorized', '/account/settings/apps?tab=authorized'],
    ['/account/oauth/authorize?client_id=cpi_x&redirect_uri=https%3A%2F%2Fa.example%2Fcb', null],
  ])('keeps the account page %s', (raw, kept) => {
    expect(safeNext(raw)).toBe(kept ?? raw);
  });

  it.each([
    '//evil.example/account/',
    '/\\evil.example/account/',
    '/\\/evil.example/account/',
    'https://evil.example/account/',
    'javascript:alert(1)//account/',
    '/account/../api/v1/users/me',
    '/account/%2e%2e/admin',
    '/accounts/elsewhere',
    '/',
    'account/settings',
    '',
  ])('sends %s to the API page instead', (raw) => {
    expect(safeNext(raw)).toBe('/account/settings/api');
  });

  it('ignores what is not a string', () => {
    expect(safeNext(['/account/settings'])).toBe('/account/settings/api');
    expect(safeNext(undefined)).toBe('/account/settings/api');
  });
});
