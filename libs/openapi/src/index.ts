export { buildOpenApiDocument, type OpenApiDocument, type PathItem } from './document';
export {
  GATEWAY_OPERATIONS,
  NOTIFICATION_OPERATIONS,
  OAUTH_OPERATIONS,
  OPERATIONS,
  POST_OPERATIONS,
  USER_OPERATIONS,
  WEBHOOK_OPERATIONS,
} from './operations';
export {
  API_BASE,
  errorStatuses,
  operationPath,
  servedBy,
  TAGS,
  type Method,
  type OperationDeclaration,
  type OperationSpec,
  type Tag,
  type Upstream,
} from './operation';
export { EVENT_EXAMPLES, REQUEST_EXAMPLES, RESOURCE_EXAMPLES, OAUTH_ERROR_EXAMPLES } from './examples';
export { EVENT_PAYLOADS, REQUESTS, RESOURCES, eventSchemaName } from './schemas';
export { ERROR_EXAMPLES } from './error-examples';
