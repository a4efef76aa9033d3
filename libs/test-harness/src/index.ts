export type { TestInfra } from './infra';
export { testInfra } from './infra';
export { uniqueName, testExchange, redisPrefix } from './names';
export type { TestDatabase } from './test-database';
export { createTestDatabase } from './test-database';
export { testRoleName, dropRoles } from './test-role';
export { deleteAmqpObjects } from './amqp-cleanup';
export { waitFor } from './wait-for';
export type { TcpProxy } from './tcp-proxy';
export { startTcpProxy } from './tcp-proxy';
export { freePort, freePorts } from './free-port';
export { probeQueue, withProbe, type Probed, type ProbeQueue } from './probe-queue';
export { apiClient, actor, type ApiResponse, type RequestOptions } from './api-client';
export { serviceSandbox, type ServiceSandbox } from './service-sandbox';
export { findChromium, launchChromium, type FoundChromium } from './chromium';
export {
  sandboxEnv,
  startServiceUnderTest,
  type RunningService,
  type ServiceDefinition,
  type ServiceUnderTest,
} from './service-under-test';
export { openEventStream, type OpenedStream, type StreamEvent } from './event-stream';
export { publishEvents, testEnvelope } from './publish-events';
export { startBalancer, type Balancer } from './balancer';
export { servedRoutes } from './served-routes';
