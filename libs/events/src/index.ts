export type { EventEnvelope } from './envelope';
export { newEventId } from './ids';
export { topologyNames, declareTopology, type TopologyNames, type TopologyOptions } from './topology';
export { AmqpConnection, type AmqpConnectionOptions } from './connection';
export { eventsMigrations } from './migrations';
export {
  commitWithEvents,
  enqueueEvent,
  OUTBOX_RETENTION_DAYS,
  prunePublishedOutbox,
  type TxDeps,
} from './outbox';
export { OutboxRelay, type OutboxRelayOptions, type OutboxPending } from './relay';
export { EventConsumer, mergeHandlers, type EventHandler, type EventConsumerOptions } from './consumer';
export { onEveryReplica } from './broadcast';
export { backoffDelay, sleep } from './backoff';
