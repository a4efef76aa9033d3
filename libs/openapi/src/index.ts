export { buildOpenApiDocument, type OpenApiDocument, type PathItem } from './document';
export { OPERATIONS } from './operations';
export { errorStatuses, TAGS, type Method, type OperationSpec, type Tag } from './operation';
export {
  EVENT_EXAMPLES,
  REQUEST_EXAMPLES,
  RESOURCE_EXAMPLES,
  ERROR_EXAMPLES,
  OAUTH_ERROR_EXAMPLES,
} from './examples';
export { EVENT_PAYLOADS, REQUESTS, RESOURCES, eventSchemaName } from './schemas';
