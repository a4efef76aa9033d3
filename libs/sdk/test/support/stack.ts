import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client, type ClientOptions } from '@community/sdk';
import { openTarget, targetOfFile, type Target } from '../../../../e2e/src/target';
import { UNLIMITED, type Member } from '../../../../e2e/src/world';

export { UNLIMITED, type Member, type Target };

/** The real stack of one test file (e2e's own: every service as a process, a webhook receiver). */
export const stackOfFile = (label: string) => targetOfFile(() => openTarget(label));

/** An SDK client of `member`, its requests coming from the member's address as the e2e world's do. */
export function clientOf(target: Target, member: Member, options: Partial<ClientOptions> = {}): Client {
  return createClient({
    baseUrl: target.baseUrl,
    apiKey: member.key,
    ...options,
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('x-forwarded-for', member.ip);
      return (options.fetch ?? fetch)(input, { ...init, headers });
    },
  });
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * An HTTP proxy in front of the gateway that can lose answers: for a request `loseAnswer` picks, it
 * forwards the request, lets the server finish (it acted), then drops the connection unanswered.
 */
export async function lossyProxy(target: string, loseAnswer: (req: SeenRequest) => boolean) {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const request: SeenRequest = { method: req.method!, url: req.url!, headers: req.headers };
    seen.push(request);
    const lose = loseAnswer(request);
    const upstream = http.request(
      new URL(req.url!, target),
      { method: req.method, headers: req.headers },
      (answer) => {
        if (lose) {
          answer.resume();
          answer.on('end', () => res.socket?.destroy());
          return;
        }
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
