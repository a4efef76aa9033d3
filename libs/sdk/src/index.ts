export { createClient, type Client, type ClientOptions } from './client';
export { CommunityApiError } from './errors';
export { OPERATIONS } from './generated/operations';
export { verifyWebhook, WebhookVerificationError } from './webhooks';
export type {
  CallOptions,
  Item,
  OperationId,
  PageOperationId,
  Params,
  PathParams,
  QueryParams,
  RateLimit,
  RequestBody,
  Result,
  Schema,
  StreamOperationId,
  StreamOptions,
  WebhookEvent,
} from './types';
