// Imported first by main.ts: tracing must be set up before express, ioredis or amqplib is loaded.
import { startTracing } from '@community/telemetry';

startTracing('gateway', { httpServer: false, activeContext: false });
