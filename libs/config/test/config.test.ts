import { z } from 'zod';
import {
  ConfigError,
  dataServiceEnv,
  parseConfig,
  portVar,
  boolVar,
  publicBaseUrlVar,
} from '@community/config';

const schema = z.object({ ...dataServiceEnv, POSTS_SERVICE_PORT: portVar(3001), FLAG: boolVar(false) });
const token = 'x'.repeat(32);

describe('parseConfig', () => {
  it('applies the DESIGN.md defaults and freezes the result', () => {
    const config = parseConfig(schema, { INTERNAL_TOKEN: token });
    expect(config).toMatchObject({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/community',
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
      AMQP_EXCHANGE: 'community.events',
      POSTS_SERVICE_PORT: 3001,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      FLAG: false,
      // Only the gateway is public: a service answers on loopback unless told otherwise.
      SERVICE_HOST: '127.0.0.1',
    });
    expect(config.PUBLIC_BASE_URL).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads values from the environment, treating empty strings as unset', () => {
    const config = parseConfig(schema, {
      INTERNAL_TOKEN: token,
      POSTS_SERVICE_PORT: '4000',
      LOG_LEVEL: '',
      FLAG: 'true',
    });
    expect(config.POSTS_SERVICE_PORT).toBe(4000);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.FLAG).toBe(true);
  });

  it('reports one line naming each bad or missing variable', () => {
    let error: unknown;
    try {
      parseConfig(schema, { DATABASE_URL: 'mysql://x', POSTS_SERVICE_PORT: 'abc', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).problems;
    expect(lines).toHaveLength(4);
    expect(lines.join('\n')).toMatch(/^DATABASE_URL: must be a postgres or postgresql URL$/m);
    expect(lines.join('\n')).toMatch(/^POSTS_SERVICE_PORT: /m);
    expect(lines.join('\n')).toMatch(/^LOG_LEVEL: must be one of/m);
    expect(lines.join('\n')).toMatch(/^INTERNAL_TOKEN: is required/m);
  });
});

describe('publicBaseUrlVar (PUBLIC_BASE_URL)', () => {
  const withBase = z.object({ PUBLIC_BASE_URL: publicBaseUrlVar() });

  it('is optional: unset or empty, answers build URLs on the request host', () => {
    expect(parseConfig(withBase, {}).PUBLIC_BASE_URL).toBeUndefined();
    expect(parseConfig(withBase, { PUBLIC_BASE_URL: '' }).PUBLIC_BASE_URL).toBeUndefined();
  });

  it('takes an absolute http(s) URL, with a path prefix, without its trailing slashes', () => {
    const read = (value: string) => parseConfig(withBase, { PUBLIC_BASE_URL: value }).PUBLIC_BASE_URL;
    expect(read('https://api.example.com/')).toBe('https://api.example.com');
    expect(read('http://localhost:8080')).toBe('http://localhost:8080');
    expect(read('https://example.com/community//')).toBe('https://example.com/community');
  });

  it.each([
    'api.example.com',
    'ftp://api.example.com',
    'data:image/svg+xml,<svg/>',
    'https://api.example.com/?x=1',
    'https://api.example.com/#top',
    'https://user:secret@api.example.com',
  ])('refuses %p with one line naming the variable', (value) => {
    expect(() => parseConfig(withBase, { PUBLIC_BASE_URL: value })).toThrow(
      /^PUBLIC_BASE_URL: must be [^\n]+$/,
    );
  });
});
