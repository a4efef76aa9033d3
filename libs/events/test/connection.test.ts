import { deleteAmqpObjects, startTcpProxy, testExchange, testInfra, waitFor } from '@community/test-harness';
import type { AmqpConnection } from '../src';
import { fastConnection } from './support/fixtures';
import { probeQueue, type ProbeQueue } from '@community/test-harness';

describe('AmqpConnection', () => {
  const { amqpUrl } = testInfra();
  const exchange = testExchange('confirms');
  let amqp: AmqpConnection;
  let probe: ProbeQueue;

  beforeAll(async () => {
    probe = await probeQueue(amqpUrl, exchange);
    amqp = fastConnection(amqpUrl, 'connection-test');
    await amqp.waitUntilConnected(5_000);
  });

  afterAll(async () => {
    await amqp.close();
    await probe.close();
    await deleteAmqpObjects(amqpUrl, { exchanges: [exchange] });
  });

  it('resolves publish once the broker confirmed it, and the message is routed', async () => {
    await amqp.publish(exchange, 'thing.happened', Buffer.from('{"n":1}'), {
      persistent: true,
      messageId: 'm1',
    });

    const [message] = await waitFor(() => probe.messages.length > 0 && probe.messages, {
      what: 'the message',
    });
    expect(message?.content.toString()).toBe('{"n":1}');
    expect(message?.fields.routingKey).toBe('thing.happened');
    expect(message?.properties.messageId).toBe('m1');
  });

  it('rejects a publish at once while disconnected', async () => {
    const proxy = await startTcpProxy({
      host: new URL(amqpUrl).hostname,
      port: Number(new URL(amqpUrl).port),
    });
    await proxy.cut();
    const offline = fastConnection(proxy.url(amqpUrl), 'offline-test');
    try {
      // "At once" without a clock: the promise has settled before the event loop's next turn, so it
      // cannot be waiting for a reconnect (a wall-clock bound fails whenever the machine is busy).
      const publishing = offline.publish(exchange, 'x', Buffer.from('{}'), {}).then(
        () => 'published',
        (err: Error) => err.message,
      );
      const nextTurn = new Promise((resolve) => setImmediate(() => resolve('still waiting')));
      expect(await Promise.race([publishing, nextTurn])).toMatch(/not connected/);
      expect(offline.isConnected()).toBe(false);
      await expect(offline.waitUntilConnected(200)).rejects.toThrow(/not reachable within 200 ms/);
    } finally {
      await offline.close();
      await proxy.stop();
    }
  });

  it('reconnects by itself after the link drops and re-runs its setups', async () => {
    const proxy = await startTcpProxy({
      host: new URL(amqpUrl).hostname,
      port: Number(new URL(amqpUrl).port),
    });
    const flaky = fastConnection(proxy.url(amqpUrl), 'flaky-test');
    let setups = 0;
    flaky.onConnect(async () => {
      setups++;
    });
    try {
      await flaky.waitUntilConnected(5_000);
      await proxy.cut();
      await waitFor(() => !flaky.isConnected(), { what: 'the drop to be noticed' });
      proxy.restore();
      await flaky.waitUntilConnected(5_000);

      await flaky.publish(exchange, 'after.reconnect', Buffer.from('{}'), {});
      expect(setups).toBe(2);
      await waitFor(() => probe.messages.some((m) => m.fields.routingKey === 'after.reconnect'), {
        what: 'the message published after reconnecting',
      });
    } finally {
      await flaky.close();
      await proxy.stop();
    }
  });
});
