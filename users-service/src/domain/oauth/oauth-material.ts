import { hashKey, randomBase62 } from '../keys/key-material';

/**
 * Every OAuth credential has a prefix that says what it is, so a leaked string is recognisable and the
 * gateway tells an access token (`cpo_`) from an API key (`cpk_`) before any lookup.
 */
export const OAUTH_PREFIX = {
  clientId: 'cpi_',
  clientSecret: 'cps_',
  code: 'cpa_',
  accessToken: 'cpo_',
  refreshToken: 'cpr_',
} as const;
export type OAuthMaterial = keyof typeof OAUTH_PREFIX;

/** Client ids are public identifiers (24 characters); everything secret has 40 (≈ 238 bits). */
export function newOAuthValue(kind: OAuthMaterial): string {
  return OAUTH_PREFIX[kind] + randomBase62(kind === 'clientId' ? 24 : 40);
}

export function looksLike(kind: OAuthMaterial, value: unknown): value is string {
  const length = kind === 'clientId' ? 24 : 40;
  return (
    typeof value === 'string' &&
    value.length === OAUTH_PREFIX[kind].length + length &&
    value.startsWith(OAUTH_PREFIX[kind]) &&
    /^[0-9A-Za-z]+$/.test(value.slice(OAUTH_PREFIX[kind].length))
  );
}

/** Secrets, codes and tokens are stored and found by SHA-256, like API keys. */
export const hashSecret = hashKey;
