import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_EXCHANGE } from '@community/config';
import { topologyNames } from '@community/events';
import { SERVICE_SCHEMA as POSTS } from '../../posts-service/src/start';
import { SERVICE_SCHEMA as USERS } from '../../users-service/src/start';
import { SERVICE_SCHEMA as WEBHOOKS } from '../../webhook-service/src/start';

// DESIGN.md §20: the dead-letter queues keep nothing beyond a retention, set as a RabbitMQ policy
// (deploy/rabbitmq/definitions.json) over the queue names the code declares (libs/events topology.ts).

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const WEEK_MS = 7 * 24 * 3600 * 1000;

interface Policy {
  vhost: string;
  name: string;
  pattern: string;
  'apply-to': string;
  priority: number;
  definition: Record<string, unknown>;
}
const [policy, ...others] = (JSON.parse(read('deploy/rabbitmq/definitions.json')) as { policies: Policy[] })
  .policies;
interface RabbitService {
  volumes: string[];
  healthcheck: { test: string[] };
}
const matches = (name: string) => new RegExp(policy!.pattern).test(name);

/** The exchange docker-compose.yml and the Kubernetes ConfigMap run with. */
function deployedExchanges(): string[] {
  const compose = parse(read('docker-compose.yml')) as { 'x-service-env': Record<string, string> };
  const k8s = /AMQP_EXCHANGE=([^\s]+)/.exec(read('deploy/k8s/base/kustomization.yaml'))?.[1];
  return [compose['x-service-env'].AMQP_EXCHANGE ?? DEFAULT_EXCHANGE, k8s ?? 'missing'];
}

describe('the dead-letter retention policy', () => {
  const services = [POSTS, USERS, WEBHOOKS].map((schema) => schema.service);

  it('keeps a dead letter a week, as a policy on queues, alone in the file', () => {
    expect(others).toEqual([]);
    expect(policy).toMatchObject({
      vhost: '/',
      'apply-to': 'queues',
      definition: { 'message-ttl': WEEK_MS },
    });
  });

  it('matches the DLQ of every service on the deployed exchange, and no other queue', () => {
    for (const exchange of deployedExchanges()) {
      expect(exchange).toBe(DEFAULT_EXCHANGE);
      for (const service of services) {
        const names = topologyNames(exchange, service);
        expect([names.deadLetterQueue, matches(names.deadLetterQueue)]).toEqual([
          names.deadLetterQueue,
          true,
        ]);
        expect([names.queue, matches(names.queue)]).toEqual([names.queue, false]);
        expect(matches(names.deadLetterExchange)).toBe(false);
      }
    }
    expect(matches(topologyNames('another.exchange', 'posts-service').deadLetterQueue)).toBe(false);
  });

  it('is what the runbook sets and what docker-compose.yml applies', () => {
    const command = /^rabbitmqctl set_policy .*$/m.exec(read('docs/operations.md'))?.[0] ?? '';
    const args = (command.match(/'[^']*'|\S+/g) ?? []).slice(2).map((arg) => arg.replace(/^'(.*)'$/, '$1'));
    const options: Record<string, string> = {};
    const positional: string[] = [];
    for (let i = 0; i < args.length; i++) {
      if (args[i]!.startsWith('--')) options[args[i]!] = args[++i]!;
      else positional.push(args[i]!);
    }
    const [name, pattern, definition = '{}'] = positional;
    expect({
      vhost: options['--vhost'],
      name,
      pattern,
      'apply-to': options['--apply-to'],
      priority: Number(options['--priority']),
      definition: JSON.parse(definition),
    }).toEqual(policy);

    const compose = parse(read('docker-compose.yml')) as { services: Record<string, RabbitService> };
    const { volumes, healthcheck } = compose.services.rabbitmq!;
    const mounted = volumes.find((v) => v.startsWith('./deploy/rabbitmq/definitions.json:'));
    expect(healthcheck.test.join(' ')).toContain(
      `grep -q ${policy!.name} || rabbitmqctl -q import_definitions ${mounted?.split(':')[1]}`,
    );
  });
});
