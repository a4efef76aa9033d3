import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

// A service that stops mid-part must cut the export short, never end it as a whole document: the
// client would get a 200 with a body that is not JSON. A service retiring (a rolling restart)
// answers with `Connection: close`, and Node 20's own fetch then takes a connection closed in the
// middle of a chunked body for its end (undici 6; seen in CI's fuzz as a 200 that was not JSON).

let h: UsersHarness;
let stopping: http.Server;
beforeAll(async () => {
  // Stands in for posts-service and webhook-service: starts each part, then its process goes away.
  stopping = http.createServer((_req, res) => {
    res.setHeader('Connection', 'close');
    res.setHeader('Content-Type', 'application/json');
    res.flushHeaders();
    res.write('[{"id":1,"title":"cut');
    setTimeout(() => res.destroy(), 20);
  });
  await new Promise<void>((resolve) => stopping.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(stopping.address() as AddressInfo).port}`;
  h = await startUsersService('export_cut', { POSTS_SERVICE_URL: url, WEBHOOK_SERVICE_URL: url });
});
afterAll(async () => {
  await h.stop();
  stopping.closeAllConnections();
  await new Promise((resolve) => stopping.close(resolve));
});

it('cuts the answer short when a part is cut short, even from a service closing its connection', async () => {
  const { as } = await registerMember(h);
  const outcome = await h.call(as, 'GET', '/users/me/export').then(
    (answer) => `a whole answer: HTTP ${answer.status}, ${answer.text.length} characters`,
    () => 'cut short',
  );
  expect(outcome).toBe('cut short');
});
