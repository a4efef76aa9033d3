import { z } from 'zod';
import {
  dataServiceEnv,
  intVar,
  loadConfig,
  parseConfig,
  portVar,
  emptyAsUndefined,
  publicBaseUrlVar,
  urlVar,
} from '@community/config';
import { email, password, username } from '@community/contracts';

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(emptyAsUndefined, schema.optional());

export const usersConfigSchema = z
  .object({
    ...dataServiceEnv,
    USERS_SERVICE_PORT: portVar(3002),
    PUBLIC_BASE_URL: publicBaseUrlVar(),
    ADMIN_USERNAME: optional(username),
    ADMIN_PASSWORD: optional(password),
    ADMIN_EMAIL: optional(email),
    /** OAuth access tokens live an hour; refresh tokens 30 days from their last rotation. */
    OAUTH_ACCESS_TOKEN_TTL_SECONDS: intVar(3600, 1),
    OAUTH_REFRESH_TOKEN_TTL_SECONDS: intVar(30 * 86_400, 60),
    /** A comment line on every open notification stream this often (DESIGN.md §13: 25 s), so idle proxies keep it. */
    NOTIFICATION_HEARTBEAT_SECONDS: intVar(25, 1),
    /** How many user lookups (`GET /users?q=`) one process runs at once; more wait briefly, then get a 429. */
    SEARCH_CONCURRENCY: intVar(2, 1),
    /** Registrations one client address may make in an hour; a stack seeded with demo members raises it. */
    REGISTRATIONS_PER_HOUR_PER_IP: intVar(20, 1),
    /** Where the export (DESIGN.md §20) reads what the other services hold about the caller. */
    POSTS_SERVICE_URL: urlVar(['http', 'https'], 'http://127.0.0.1:3001'),
    WEBHOOK_SERVICE_URL: urlVar(['http', 'https'], 'http://127.0.0.1:3003'),
    /** The OAuth issuer (RFC 8414), e.g. https://api.example.com; unset: the host each request came in on. */
    OAUTH_ISSUER: optional(
      z
        .url({ protocol: /^https?$/, message: 'must be an http(s) URL such as https://api.example.com' })
        .transform((url) => url.replace(/\/+$/, '')),
    ),
  })
  .superRefine((env, ctx) => {
    // The admin bootstrap needs all three or none.
    const admin = ['ADMIN_USERNAME', 'ADMIN_PASSWORD', 'ADMIN_EMAIL'] as const;
    const given = admin.filter((name) => env[name] !== undefined);
    if (given.length === 0 || given.length === admin.length) return;
    for (const name of admin.filter((n) => env[n] === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `must be set together with ${given.join(' and ')}`,
      });
    }
  });

export type UsersConfig = z.output<typeof usersConfigSchema>;

export const readConfig = (env: NodeJS.ProcessEnv = process.env): UsersConfig =>
  loadConfig(usersConfigSchema, env);
export const parseUsersConfig = (env: NodeJS.ProcessEnv): UsersConfig => parseConfig(usersConfigSchema, env);
