import { z } from 'zod';
import { text, timestamp } from './common';

export const OAUTH_CLIENT_TYPES = ['confidential', 'public'] as const;
export type OAuthClientType = (typeof OAUTH_CLIENT_TYPES)[number];
export const MAX_OAUTH_APPS_PER_USER = 20;
export const MAX_REDIRECT_URIS = 10;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * Why a redirect URI cannot be registered, or null when it can. https anywhere; plain http only on
 * the loopback interface, for native and development clients (RFC 8252 §7.3); never a fragment or
 * credentials (RFC 6749 §3.1.2); never port 0, where nothing can listen (DESIGN.md §21).
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return 'must use https (plain http only on 127.0.0.1, [::1] or localhost)';
  }
  if (value.includes('#')) return 'must not contain a fragment (#)';
  if (url.username || url.password) return 'must not contain credentials';
  // The parser writes `:0`, `:00` … as port '0'.
  if (url.port === '0') return 'must not use port 0';
  return null;
}

export const redirectUri = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(2000, 'must be at most 2000 characters')
  .superRefine((value, ctx) => {
    const problem = redirectUriProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const createOAuthAppBody = z.strictObject({
  name: text({ min: 1, max: 100 }),
  redirect_uris: z
    .array(redirectUri)
    .min(1, 'must list at least one redirect URI')
    .max(MAX_REDIRECT_URIS, `must list at most ${MAX_REDIRECT_URIS} redirect URIs`)
    .transform((uris) => [...new Set(uris)]),
  client_type: z
    .enum(OAUTH_CLIENT_TYPES, { message: `must be one of ${OAUTH_CLIENT_TYPES.join(', ')}` })
    .default('confidential'),
});
export type CreateOAuthAppBody = z.output<typeof createOAuthAppBody>;

export const oauthAppSchema = z.strictObject({
  id: z.int(),
  client_id: z.string(),
  name: z.string(),
  client_type: z.enum(OAUTH_CLIENT_TYPES),
  redirect_uris: z.array(z.string()),
  created_at: timestamp,
  /** When the current client secret was issued; null for public apps. */
  secret_issued_at: timestamp.nullable(),
});
export type OAuthApp = z.infer<typeof oauthAppSchema>;

/** The answer to registration and to a secret rotation: the only times the secret is shown. */
export const oauthAppWithSecretSchema = oauthAppSchema.extend({ client_secret: z.string().nullable() });
export type OAuthAppWithSecret = z.infer<typeof oauthAppWithSecretSchema>;
