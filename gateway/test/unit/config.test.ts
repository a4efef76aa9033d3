import { parseGatewayConfig } from '../../src/config';

const base = { INTERNAL_TOKEN: 'a-secret-of-sixteen-chars' };

describe('gateway configuration', () => {
  it('finds each service on the port its variable names when no URL is given (npm start with other ports)', () => {
    const config = parseGatewayConfig({
      ...base,
      POSTS_SERVICE_PORT: '13001',
      USERS_SERVICE_PORT: '13002',
      WEBHOOK_SERVICE_PORT: '13003',
    });
    expect([config.POSTS_SERVICE_URL, config.USERS_SERVICE_URL, config.WEBHOOK_SERVICE_URL]).toEqual([
      'http://127.0.0.1:13001',
      'http://127.0.0.1:13002',
      'http://127.0.0.1:13003',
    ]);
  });

  it('defaults the hardening settings of DESIGN.md §9', () => {
    expect(parseGatewayConfig(base)).toMatchObject({
      PAGES_HOURLY_LIMIT: 600,
      GATEWAY_REPLICAS: 1,
      BODY_TIMEOUT_MS: 10_000,
      UPSTREAM_TIMEOUT_MS: 10_000,
      UPSTREAM_STALL_MS: 1_000,
    });
    expect(() => parseGatewayConfig({ ...base, GATEWAY_REPLICAS: '0' })).toThrow(
      'GATEWAY_REPLICAS: must be at least 1',
    );
  });

  it('defaults admission (DESIGN.md §18) to an adaptive bound and a 200 ms wait', () => {
    const config = parseGatewayConfig(base);
    expect(config.QUEUE_TIMEOUT_MS).toBe(200);
    expect(config.UPSTREAM_MAX_IN_FLIGHT).toBeUndefined();
    expect(parseGatewayConfig({ ...base, UPSTREAM_MAX_IN_FLIGHT: '64' }).UPSTREAM_MAX_IN_FLIGHT).toBe(64);
    expect(() => parseGatewayConfig({ ...base, UPSTREAM_MAX_IN_FLIGHT: '0' })).toThrow(
      'UPSTREAM_MAX_IN_FLIGHT: must be at least 1',
    );
    expect(() => parseGatewayConfig({ ...base, QUEUE_TIMEOUT_MS: 'soon' })).toThrow('QUEUE_TIMEOUT_MS');
  });

  it('reads CORS_ALLOWED_ORIGINS as any origin by default, or exact origins, one line per bad one', () => {
    expect(parseGatewayConfig(base).CORS_ALLOWED_ORIGINS).toBe('*');
    const listed = parseGatewayConfig({
      ...base,
      CORS_ALLOWED_ORIGINS: 'https://a.example, http://localhost:5173',
    });
    expect(listed.CORS_ALLOWED_ORIGINS).toEqual(new Set(['https://a.example', 'http://localhost:5173']));
    expect(() => parseGatewayConfig({ ...base, CORS_ALLOWED_ORIGINS: 'https://a.example/app' })).toThrow(
      'CORS_ALLOWED_ORIGINS: "https://a.example/app" is not an origin',
    );
    expect(() => parseGatewayConfig({ ...base, CORS_ALLOWED_ORIGINS: '*, https://a.example' })).toThrow(
      '* must stand alone',
    );
  });

  it('prefers an explicit URL, and falls back to ports 3001–3003', () => {
    const config = parseGatewayConfig({
      ...base,
      USERS_SERVICE_PORT: '13002',
      USERS_SERVICE_URL: 'http://users.internal:8000',
    });
    expect([config.POSTS_SERVICE_URL, config.USERS_SERVICE_URL, config.WEBHOOK_SERVICE_URL]).toEqual([
      'http://127.0.0.1:3001',
      'http://users.internal:8000',
      'http://127.0.0.1:3003',
    ]);
  });
});
