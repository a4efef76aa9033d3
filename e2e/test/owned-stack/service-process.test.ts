import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@community/test-harness';
import { ServiceProcess } from '../../src/stack/service-process';

// A stack's process is ready when its own /readyz answers: another process that took its port
// between the pick and the bind answers too (seen in CI: a gateway then talked to another test
// file's users-service and every request came back 401).

const processes: ServiceProcess[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  for (const p of processes.splice(0)) p.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

function fixture(port: number): ServiceProcess {
  const p = new ServiceProcess({
    name: 'posts',
    dir: 'e2e/test/fixtures/listener',
    port,
    env: { PATH: process.env.PATH, FIXTURE_PORT: String(port) },
    logFile: path.join(os.tmpdir(), `service-process-test-${port}.log`),
  });
  processes.push(p);
  return p;
}

it('is started once it answers on its port itself', async () => {
  const p = fixture(await freePort());
  await p.start();
  expect(p.running).toBe(true);
});

it('is not taken for started when another process answers on its port: it fails with its own log', async () => {
  const port = await freePort();
  const other = http.createServer((_req, res) => res.end('{}'));
  servers.push(other);
  await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
  await expect(fixture(port).start()).rejects.toThrow(/exited during start[\s\S]*EADDRINUSE/);
});
