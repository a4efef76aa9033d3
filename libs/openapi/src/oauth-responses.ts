import type { OAuthErrorCode } from '@community/contracts';
import { ERROR_EXAMPLES } from './error-examples';
import { OAUTH_ERROR_EXAMPLES } from './examples';
import { commonHeaders, errorSchemaName, HEADERS, ref } from './responses';

type Json = Record<string, unknown>;

interface OAuthErrorResponse {
  name: string;
  description: string;
  codes: OAuthErrorCode[];
  /** The gateway can answer this status itself, with this API envelope code (the schema is then either). */
  gateway?: 'internal_error' | 'service_unavailable' | 'request_timeout' | 'payload_too_large';
  headers?: Record<string, Json>;
}

/**
 * The error answers of the OAuth protocol endpoints (token, revocation): RFC 6749 §5.2 bodies, never
 * cached. 429 is the gateway's, in the envelope; 500 and 503 come from the gateway or users-service.
 */
export const OAUTH_ERROR_RESPONSES: Record<number, OAuthErrorResponse> = {
  400: {
    name: 'OAuthBadRequest',
    description:
      'RFC 6749 §5.2: a parameter is missing, repeated or wrong, the body is not a form, the grant (code, refresh token) is invalid, expired, replayed or not this app’s, or the client id is unknown without HTTP Basic.',
    codes: [
      'invalid_request',
      'invalid_client',
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_scope',
    ],
  },
  401: {
    name: 'OAuthUnauthorized',
    description: 'The app’s HTTP Basic credentials are wrong or malformed (`invalid_client`).',
    codes: ['invalid_client'],
    headers: {
      'WWW-Authenticate': {
        description: 'The scheme to authenticate with: HTTP Basic.',
        required: true,
        schema: { type: 'string', pattern: '^Basic ' },
      },
    },
  },
  408: {
    name: 'OAuthRequestTimeout',
    description:
      'The gateway’s `request_timeout` envelope: the body did not arrive within `BODY_TIMEOUT_MS`; the connection is closed.',
    codes: [],
    gateway: 'request_timeout',
  },
  413: {
    name: 'OAuthPayloadTooLarge',
    description:
      'The body is larger than 64 KiB: the gateway’s `payload_too_large` envelope (it reads every body first).',
    codes: [],
    gateway: 'payload_too_large',
  },
  500: {
    name: 'OAuthInternalError',
    description: 'An unexpected failure: `server_error`, or the gateway’s `internal_error` envelope.',
    codes: ['server_error'],
    gateway: 'internal_error',
  },
  503: {
    name: 'OAuthServiceUnavailable',
    description:
      'The database or users-service is unreachable: `temporarily_unavailable`, or the gateway’s `service_unavailable` envelope. Try again after `Retry-After`.',
    codes: ['temporarily_unavailable'],
    gateway: 'service_unavailable',
    headers: { 'Retry-After': ref('headers', 'Retry-After') },
  },
};

export function oauthErrorResponseComponent(status: number): Json {
  const spec = OAUTH_ERROR_RESPONSES[status]!;
  const { gateway } = spec;
  // The gateway's own answers (and any before the limiter counted) lack what users-service adds.
  const headers: Json = {
    ...commonHeaders(!gateway),
    'Cache-Control': gateway
      ? { ...HEADERS['Cache-Control'], required: false }
      : ref('headers', 'Cache-Control'),
    ...spec.headers,
  };
  const oauthError = ref('schemas', 'OAuthError');
  const envelope = gateway ? ref('schemas', errorSchemaName(status)) : null;
  // Some statuses only the gateway answers (a slow or oversized body never reaches users-service).
  const schema = !envelope ? oauthError : spec.codes.length ? { anyOf: [oauthError, envelope] } : envelope;
  const examples: Json = Object.fromEntries(
    spec.codes.map((code) => [code, { value: OAUTH_ERROR_EXAMPLES[code] }]),
  );
  if (gateway) examples[gateway] = { value: ERROR_EXAMPLES[gateway] };
  return { description: spec.description, headers, content: { 'application/json': { schema, examples } } };
}
