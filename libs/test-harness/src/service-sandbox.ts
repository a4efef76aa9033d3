import { topologyNames } from '@community/events';
import { deleteAmqpObjects } from './amqp-cleanup';
import { testInfra } from './infra';
import { testExchange } from './names';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface ServiceSandbox {
  database: TestDatabase;
  exchange: string;
  /** Drops the database and deletes the exchange and the queues of `services` on it. */
  cleanup(services: string[]): Promise<void>;
}

/** A database and an exchange of its own for services started by one test file. */
export async function serviceSandbox(label: string): Promise<ServiceSandbox> {
  const database = await createTestDatabase(label);
  const exchange = testExchange(label);
  return {
    database,
    exchange,
    async cleanup(services) {
      const queues = services.flatMap((service) => {
        const names = topologyNames(exchange, service);
        return [names.queue, names.deadLetterQueue];
      });
      const { deadLetterExchange } = topologyNames(exchange, services[0] ?? 'none');
      await deleteAmqpObjects(testInfra().amqpUrl, { queues, exchanges: [exchange, deadLetterExchange] });
      await database.drop();
    },
  };
}
