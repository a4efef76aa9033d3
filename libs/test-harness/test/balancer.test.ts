import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBalancer } from '../src/balancer';
import { freePort } from '../src/free-port';

/** An HTTP server that answers its own name, closing each connection (one request per connection). */
async function replica(name: string) {
  const server = http.createServer((_req, res) => {
    res.setHeader('connection', 'close');
    res.end(name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const ask = async (url: string) => (await fetch(url, { headers: { connection: 'close' } })).text();

it('sends each new connection to the next replica in turn', async () => {
  const [a, b] = [await replica('a'), await replica('b')];
  const balancer = await startBalancer([a, b]);
  try {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await ask(balancer.url));
    expect(answers).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    expect(balancer.counts()).toEqual([3, 3]);
  } finally {
    await balancer.stop();
    await Promise.all([a.close(), b.close()]);
  }
});

it('passes a connection a replica refuses on to the next one', async () => {
  const live = await replica('live');
  const balancer = await startBalancer([{ port: await freePort() }, live]);
  try {
    for (let i = 0; i < 4; i++) expect(await ask(balancer.url)).toBe('live');
    expect(balancer.counts()).toEqual([0, 4]);
  } finally {
    await balancer.stop();
    await live.close();
  }
});

it('sends no new connection to a replica whose /readyz answers 503, and takes it back at 200', async () => {
  let stopping = false;
  const leaving = http.createServer((req, res) => {
    res.setHeader('connection', 'close');
    if (req.url === '/readyz') res.writeHead(stopping ? 503 : 200).end();
    else res.end('leaving');
  });
  await new Promise<void>((resolve) => leaving.listen(0, '127.0.0.1', resolve));
  const staying = await replica('staying');
  const balancer = await startBalancer([{ port: (leaving.address() as AddressInfo).port }, staying]);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    stopping = true;
    // A Kubernetes Service learns from the readiness probe: within one round of asking here.
    await sleep(400);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await ask(balancer.url));
    expect(answers).toEqual(Array(6).fill('staying'));
    stopping = false;
    await sleep(400);
    const after = [];
    for (let i = 0; i < 4; i++) after.push(await ask(balancer.url));
    expect(after.sort()).toEqual(['leaving', 'leaving', 'staying', 'staying']);
  } finally {
    await balancer.stop();
    await staying.close();
    await new Promise<void>((resolve) => leaving.close(() => resolve()));
  }
});
