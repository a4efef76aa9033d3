import net from 'node:net';

/** True when a TCP connection to the URL's host and port opens within `timeoutMs`. */
export function tcpReachable(url: string, defaultPort: number, timeoutMs: number): Promise<boolean> {
  const endpoint = endpointOf(url, defaultPort);
  // A URL we cannot read a host from (unix socket, several hosts) is the user's call; trust it.
  if (!endpoint) return Promise.resolve(true);
  return new Promise((resolve) => {
    const socket = net.connect(endpoint.port, endpoint.host);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function endpointOf(url: string, defaultPort: number): { host: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (!host) return undefined;
    return { host, port: parsed.port ? Number(parsed.port) : defaultPort };
  } catch {
    return undefined;
  }
}

/**
 * The URL with any password masked, fit for an error message. A copy of @community/config's
 * redactUrl: jest's global setup runs in plain Node, where workspace libs resolve to their
 * (unbuilt) dist, so the setup code imports no workspace package.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}
