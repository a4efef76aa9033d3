import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Milliseconds from the first byte sent to the connection's close. */
  ms: number;
}

/**
 * One request written by hand on its own socket, as a slow or malicious client would: `head` (the
 * request line and headers, without the blank line) and then only `body`, however short of what
 * the head declares. Resolves with the answer once the server closes the connection, or rejects
 * after `timeoutMs`.
 */
export function rawRequest(url: string, head: string, body = '', timeoutMs = 15_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [top = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = top.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      const payload = rest.join('\r\n\r\n');
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload);
      } catch {
        parsed = payload;
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body: parsed,
        ms: performance.now() - started,
      });
    });
    socket.write(`${head}\r\n\r\n${body}`);
  });
}

/** The breaker gauge of one upstream (0 closed, 1 half-open, 2 open) from the gateway's /metrics. */
export async function breakerState(gatewayUrl: string, upstream: string): Promise<number> {
  const metrics = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const match = new RegExp(`gateway_breaker_state\\{[^}]*upstream="${upstream}"[^}]*\\} (\\d)`).exec(metrics);
  if (!match) throw new Error(`no breaker gauge for ${upstream}`);
  return Number(match[1]);
}
