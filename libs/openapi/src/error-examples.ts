import type { ErrorCode } from '@community/contracts';

/** One example body per error code, as the error mapper writes them. */
export const ERROR_EXAMPLES: Record<Exclude<ErrorCode, 'method_not_allowed'>, Record<string, unknown>> = {
  validation_error: {
    error: 'validation_error',
    message: 'title is required',
    details: {
      field: 'title',
      code: 'required',
      errors: [{ field: 'title', code: 'required', message: 'title is required' }],
    },
  },
  invalid_json: { error: 'invalid_json', message: 'the request body is not valid JSON' },
  query_too_complex: {
    error: 'query_too_complex',
    message: 'a search may hold at most 16 terms and 8 "or" branches',
    details: { terms: 17, max_terms: 16, or_branches: 0, max_or_branches: 8 },
  },
  unauthorized: { error: 'unauthorized', message: 'an API key is required: Authorization: Bearer <key>' },
  insufficient_scope: {
    error: 'insufficient_scope',
    message: 'this operation needs the "write" scope',
    details: { required_scope: 'write' },
  },
  account_suspended: {
    error: 'account_suspended',
    message: 'this account is suspended until 2026-12-01T00:00:00Z',
    details: { until: '2026-12-01T00:00:00Z', reason: 'spam in several categories' },
  },
  forbidden: { error: 'forbidden', message: 'only the author or a moderator can change this post' },
  post_locked: { error: 'post_locked', message: 'this post is locked and accepts no new comments' },
  not_found: { error: 'not_found', message: 'post not found' },
  conflict: {
    error: 'conflict',
    message: 'a category with slug "general" already exists',
    details: { field: 'slug' },
  },
  idempotency_in_progress: {
    error: 'idempotency_in_progress',
    message: 'a request with this Idempotency-Key is still being processed; retry in a second',
  },
  replay_in_progress: {
    error: 'replay_in_progress',
    message: 'a replay to this endpoint is still running; wait for it to finish',
  },
  idempotency_key_reused: {
    error: 'idempotency_key_reused',
    message: 'this Idempotency-Key was used for a different request; use a new key for a new request',
  },
  request_timeout: { error: 'request_timeout', message: 'the request body did not arrive within 10 seconds' },
  payload_too_large: { error: 'payload_too_large', message: 'the request body is larger than 64 KiB' },
  unsupported_media_type: {
    error: 'unsupported_media_type',
    message: 'request bodies must be JSON sent with Content-Type: application/json',
  },
  rate_limit_exceeded: {
    error: 'rate_limit_exceeded',
    message: 'rate limit exceeded; retry in 1312 seconds',
    retry_after: 1312,
  },
  concurrency_limited: {
    error: 'concurrency_limited',
    message: 'this account has 8 requests in flight, the most its plan allows; wait for one to finish',
    retry_after: 1,
  },
  replay_limited: {
    error: 'replay_limited',
    message: 'this endpoint has had 3 replays in the last 24 hours, the most allowed; retry in 52000 seconds',
    retry_after: 52000,
  },
  internal_error: {
    error: 'internal_error',
    message: 'an internal error occurred; quote the request id when reporting it',
    details: { request_id: '0f9c2f0e-5b1e-4c57-9d1a-2f4f2b7c8e11' },
  },
  service_unavailable: { error: 'service_unavailable', message: 'the posts service did not answer' },
  overloaded: { error: 'overloaded', message: 'the posts service is busy; try again in a second' },
  search_timeout: {
    error: 'search_timeout',
    message: 'the search took too long; narrow it or try again shortly',
  },
};
