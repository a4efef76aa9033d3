import { InvalidClientError } from '@node-oauth/oauth2-server';
import { redirectUriProblem } from '@community/contracts';
import { errorRedirect } from '../../src/domain/oauth/authorization-request';
import { parseBasic, plainBasic } from '../../src/domain/oauth/client-credentials';
import { looksLike, newOAuthValue } from '../../src/domain/oauth/oauth-material';
import { isRegisteredRedirect, parseScopeParam, scopeBeyondRole } from '../../src/domain/oauth/oauth-scopes';

describe('OAuth material', () => {
  it('gives each kind its prefix and length, and recognises only its own kind', () => {
    expect(newOAuthValue('clientId')).toMatch(/^cpi_[0-9A-Za-z]{24}$/);
    expect(newOAuthValue('accessToken')).toMatch(/^cpo_[0-9A-Za-z]{40}$/);
    const refresh = newOAuthValue('refreshToken');
    expect(looksLike('refreshToken', refresh)).toBe(true);
    expect(looksLike('accessToken', refresh)).toBe(false);
    expect(looksLike('refreshToken', `${refresh}x`)).toBe(false);
    expect(looksLike('refreshToken', refresh.replace(/.$/, '!'))).toBe(false);
    expect(looksLike('code', undefined)).toBe(false);
  });
});

describe('redirect URIs', () => {
  it.each([
    ['https://app.example/cb', null],
    ['http://127.0.0.1:8123/cb', null],
    ['http://[::1]/cb', null],
    ['http://localhost:3000/cb', null],
    ['http://app.example/cb', 'must use https (plain http only on 127.0.0.1, [::1] or localhost)'],
    ['https://app.example/cb#frag', 'must not contain a fragment (#)'],
    ['https://user:pw@app.example/cb', 'must not contain credentials'],
    ['javascript:alert(1)', 'must be an https URL'],
    ['/relative', 'must be an absolute URL'],
  ])('judges %s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toBe(problem);
  });

  it('match exactly, except for the port of a loopback IP (RFC 8252 §7.3)', () => {
    const registered = ['https://app.example/cb', 'http://127.0.0.1:9/callback'];
    expect(isRegisteredRedirect(registered, 'https://app.example/cb')).toBe(true);
    expect(isRegisteredRedirect(registered, 'https://app.example/cb/')).toBe(false);
    expect(isRegisteredRedirect(registered, 'https://app.example:8443/cb')).toBe(false);
    expect(isRegisteredRedirect(registered, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(isRegisteredRedirect(registered, 'http://127.0.0.1:51234/other')).toBe(false);
    expect(isRegisteredRedirect(registered, 'http://127.0.0.2:9/callback')).toBe(false);
  });

  it('parse a loopback redirect URI rather than pattern-match it: no port 99999, no odd forms', () => {
    const registered = ['http://127.0.0.1:9/callback', 'http://[::1]/cb'];
    expect(isRegisteredRedirect(registered, 'http://[::1]:4000/cb')).toBe(true);
    for (const given of [
      'http://127.0.0.1:99999/callback', // not a port
      'http://127.0.0.1:/callback',
      'http://127.0.0.1:9/x/../callback', // the parser would make it /callback
      'http://127.1:9/callback', // the parser would make it 127.0.0.1
      'http://127.0.0.1:09/callback',
      'http://127.0.0.1:9/callback#frag',
      'http://user@127.0.0.1:9/callback',
    ]) {
      expect([given, isRegisteredRedirect(registered, given)]).toEqual([given, false]);
    }
  });

  it('carry errors back with the redirect URI’s own query kept', () => {
    const back = new URL(errorRedirect('https://app.example/cb?tenant=7', 'access_denied', 'no', 'xyz'));
    expect(Object.fromEntries(back.searchParams)).toEqual({
      tenant: '7',
      error: 'access_denied',
      error_description: 'no',
      state: 'xyz',
    });
  });
});

describe('scopes', () => {
  it('default to read, drop duplicates and refuse unknown names', () => {
    expect(parseScopeParam(undefined)).toEqual(['read']);
    expect(parseScopeParam('  ')).toEqual(['read']);
    expect(parseScopeParam('read write read')).toEqual(['read', 'write']);
    expect(parseScopeParam('read profile')).toBeNull();
  });

  it('name the first scope a role cannot hold', () => {
    expect(scopeBeyondRole('member', ['read', 'moderate', 'admin'])).toBe('moderate');
    expect(scopeBeyondRole('moderator', ['read', 'moderate'])).toBeUndefined();
  });
});

describe('client credentials in HTTP Basic (RFC 6749 §2.3.1)', () => {
  const basic = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;

  it('are form-decoded, as oauth4webapi and the RFC encode them', () => {
    expect(parseBasic(basic('cpi%5Fabc:s%3Ae+cret'))).toEqual({ id: 'cpi_abc', secret: 's:e cret' });
    expect(plainBasic(basic('cpi%5Fabc:x'))).toBe(basic('cpi_abc:x'));
    expect(parseBasic('Bearer cpo_x')).toBeNull();
  });

  it('refuse a header without a colon or with broken encoding', () => {
    expect(() => parseBasic(basic('no-colon'))).toThrow(InvalidClientError);
    expect(() => parseBasic(basic('id:%E0%A4%A'))).toThrow(InvalidClientError);
  });
});
