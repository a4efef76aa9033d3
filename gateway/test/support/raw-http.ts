import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Milliseconds from the first byte sent to the connection's close. */
  ms: number;
  /** Milliseconds from the first byte sent to the first byte of the answer. */
  firstByteMs: number;
  /** Everything the server sent, as text. */
  raw: string;
  /** The error a write met, if the server stopped reading and reset the connection under it. */
  writeError?: string;
}

/**
 * One request written by hand on its own socket, as a slow or malicious client would: `head` (the
 * request line and headers, without the blank line) and then only `body`, however short of what
 * the head declares. Resolves with the answer once the server closes the connection, or rejects
 * after `timeoutMs`. A body given as pieces is written one piece every `gapMs`, as a client uploading
 * over a real network does, whatever the server answered or closed meanwhile.
 */
export function rawRequest(
  url: string,
  head: string,
  body: string | string[] = '',
  timeoutMs = 15_000,
  gapMs = 0,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // Half-open, as an uploading client is: the server's close does not stop its writes.
    const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    let written = false;
    let ended = false;
    socket.once('end', () => {
      ended = true;
      if (written) socket.end();
    });
    const chunks: Buffer[] = [];
    let firstByteMs = 0;
    let writeError: string | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      firstByteMs ||= performance.now() - started;
      chunks.push(chunk);
    });
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
        raw: text,
        firstByteMs,
        writeError,
      });
    });
    const [first = '', ...rest] = typeof body === 'string' ? [body] : body;
    const write = (text: string) =>
      socket.write(text, (err) => {
        if (err) writeError ??= (err as NodeJS.ErrnoException).code ?? err.message;
      });
    write(`${head}\r\n\r\n${first}`);
    void (async () => {
      for (const piece of rest) {
        await new Promise((wait) => setTimeout(wait, gapMs));
        if (socket.destroyed) return;
        write(piece);
      }
      written = true;
      if (ended) socket.end();
    })();
  });
}

/** The breaker gauge of one upstream (0 closed, 1 half-open, 2 open) from the gateway's /metrics. */
export async function breakerState(gatewayUrl: string, upstream: string): Promise<number> {
  const metrics = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const match = new RegExp(`gateway_breaker_state\\{[^}]*upstream="${upstream}"[^}]*\\} (\\d)`).exec(metrics);
  if (!match) throw new Error(`no breaker gauge for ${upstream}`);
  return Number(match[1]);
}
