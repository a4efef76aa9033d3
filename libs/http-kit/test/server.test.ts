import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import express from 'express';
import { listen, type RunningServer } from '@community/http-kit';

const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close(0)));
});

/** Starts `handler` and answers which prototypes each request and answer arrived with, before it ran. */
async function arrivals(handler: http.RequestListener) {
  const server = await listen(handler, 0, '127.0.0.1');
  servers.push(server);
  const seen: { req: object | null; res: object | null }[] = [];
  server.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) =>
    seen.push({ req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) }),
  );
  return { server, seen };
}

describe('listen', () => {
  it("gives an express app's requests and answers its own prototypes from birth, so express changes none", async () => {
    const app = express();
    app.get('/hello', (req, res) => {
      res.json({
        app: req.app === app,
        query: req.query.name,
        ownProto: Object.getPrototypeOf(req) === app.request,
      });
    });
    const { server, seen } = await arrivals(app);

    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${server.url}/hello?name=ada`);
      expect(answer.status).toBe(200);
      // Express works as ever: its request and response methods, the app, the query.
      expect(await answer.json()).toEqual({ app: true, query: 'ada', ownProto: true });
    }
    expect(seen).toHaveLength(3);
    for (const { req, res } of seen) {
      expect(req).toBe(app.request);
      expect(res).toBe(app.response);
    }
    // …and they are node's classes still.
    expect(app.request).toBeInstanceOf(http.IncomingMessage);
    expect(app.response).toBeInstanceOf(http.ServerResponse);
  });

  it("gives any other handler node's own classes", async () => {
    const { server, seen } = await arrivals((_req, res) => res.end('ok'));
    expect(await (await fetch(`${server.url}/`)).text()).toBe('ok');
    expect(seen).toEqual([{ req: http.IncomingMessage.prototype, res: http.ServerResponse.prototype }]);
  });
});
