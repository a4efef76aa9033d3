import http from 'node:http';
import type { RequestListener } from 'node:http';

/**
 * For an express app: node:http classes whose requests and answers are born with the app's own
 * prototypes (`app.request`, `app.response`), so express's `Object.setPrototypeOf` of each finds it
 * set already and changes nothing. Any other handler: node's own classes (no options).
 *
 * Why: changed after birth, the prototype kept every request and answer alive past the young
 * generation, and each scavenge copied them into the old one. bench/RESULTS.md, "Garbage kept
 * alive: a Map's tables and express's prototype change". Canary: test/express-prototypes.test.ts.
 */
export function bornAs(handler: RequestListener): http.ServerOptions {
  if (!isExpressApp(handler)) return {};
  function Request(this: http.IncomingMessage, ...args: unknown[]) {
    Reflect.apply(http.IncomingMessage, this, args);
  }
  Request.prototype = handler.request;
  function Response(this: http.ServerResponse, ...args: unknown[]) {
    Reflect.apply(http.ServerResponse, this, args);
  }
  Response.prototype = handler.response;
  return {
    IncomingMessage: Request as unknown as typeof http.IncomingMessage,
    ServerResponse: Response as unknown as typeof http.ServerResponse,
  };
}

interface ExpressLike {
  request: http.IncomingMessage;
  response: http.ServerResponse;
}

const isExpressApp = (handler: RequestListener): handler is RequestListener & ExpressLike =>
  (handler as Partial<ExpressLike>).request instanceof http.IncomingMessage &&
  (handler as Partial<ExpressLike>).response instanceof http.ServerResponse;
