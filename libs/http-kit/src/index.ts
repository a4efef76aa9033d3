export { createServiceApp, serviceAppFor, type ServiceAppDeps, type ServiceAppOptions } from './create-app';
export { parseWith, parseId, toFieldErrors } from './validate';
export {
  assertBound,
  expressPath,
  MethodNotAllowedError,
  operationRoutes,
  resource,
  type Handler,
  type BoundHandlers,
  type RoutedOperation,
} from './resource';
export {
  ANSWERED,
  raw,
  runOperation,
  runOperations,
  type ListAnswer,
  type OperationHandler,
  type OperationInput,
  type OperationHandlers,
  type RawHandler,
  type RunnableOperation,
  type RunOptions,
} from './operation-runner';
export {
  answeredNotModified,
  sendData,
  sendCreated,
  sendPage,
  sendCursorPage,
  linkHeader,
  type Page,
  type CursorPage,
} from './envelope';
export { encodeCursor, decodeCursor, type CursorList } from './cursor';
export { sendTimeOrdered, sliceOf, type Slice, type TimeOrderedList } from './time-ordered';
export { JsonStream } from './json-stream';
export {
  signIdentity,
  verifyIdentity,
  identityOf,
  requireActor,
  callerOf,
  IDENTITY_HEADERS,
} from './identity';
export type { VerifiedIdentity } from './identity';
export {
  STREAM_CHANNEL_PATH,
  STREAM_CHANNEL_PROTOCOL,
  gatewayFrame,
  frameLine,
  holdChannel,
  readFrames,
  type GatewayFrame,
  type ServiceFrame,
} from './stream-channel';
export { Slots, SlotsFull, inSlots, searchSlots, type SlotsOptions } from './slots';
export { createRegistry, httpMetrics, requestRecorder, routeOf, type RecordRequest } from './metrics';
export { Tally } from './tally';
export { mountHealth, PROBE_PATHS, type ReadinessCheck, type HealthOptions } from './health';
export { listen, type RunningServer } from './server';
export { errorHandler, errorReply, notFound, type ErrorReply, type ErrorContext } from './error-handler';
export { jsonBody, hasBody, BODY_LIMIT } from './body';
export { requestId, requestIdField, takeRequestId } from './request-id';
export { accessLog, logAccess, type AccessEntry } from './access-log';
export { publicBase } from './public-base';
export { conditionalRequests, namesEtag } from './conditional';
export { isCrossOrigin } from './cross-origin';
export {
  idempotentPosts,
  IDEMPOTENCY_KEY_HEADER,
  REPLAYED_HEADER,
  type IdempotencyOptions,
} from './idempotency';
export { escapeHtml } from './escape-html';
export { EVENT_STREAM_HEADERS } from './event-stream';
export { FAULT_HEADER, REQUEST_FAULT, REQUEST_FAULT_CODES } from './fault';
export { formValue, formValues } from './form-body';
