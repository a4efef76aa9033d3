import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { bornAs } from '../src/express-prototypes';

interface Prototypes {
  req: object | null;
  res: object | null;
}

/**
 * One request to an express app on a node:http server made with `options`: the prototypes its
 * request and answer were born with, and those they had when the app's handler ran.
 */
async function prototypesOfOneRequest(options: (app: express.Express) => http.ServerOptions) {
  const app = express();
  let handled: Prototypes | undefined;
  app.get('/', (req, res) => {
    handled = { req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) };
    res.end('ok');
  });
  const server = http.createServer(options(app), app);
  let born: Prototypes | undefined;
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    born = { req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return { app, born: born!, handled: handled! };
}

describe('bornAs', () => {
  it('without it, express changes the prototype of every request and answer after node made them', async () => {
    // The change that kept them alive past the young generation. Should a later express no longer
    // make it, this fails: bornAs is then no longer needed.
    const { app, born, handled } = await prototypesOfOneRequest(() => ({}));
    expect(born.req).toBe(http.IncomingMessage.prototype);
    expect(born.res).toBe(http.ServerResponse.prototype);
    expect(handled.req).toBe(app.request);
    expect(handled.res).toBe(app.response);
  });

  it("with it, requests and answers are born with the app's prototypes, so express changes none", async () => {
    const { app, born, handled } = await prototypesOfOneRequest(bornAs);
    expect(born.req).toBe(app.request);
    expect(born.res).toBe(app.response);
    expect(handled.req).toBe(app.request);
    expect(handled.res).toBe(app.response);
  });

  it("gives any other handler node's own classes", () => {
    expect(bornAs((_req, res) => res.end())).toEqual({});
  });
});
