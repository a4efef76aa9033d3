import http from 'node:http';

/**
 * Whether the service answers its `/healthz` within `timeoutMs`, on a connection of its own: a
 * stopped process still accepts connections (the kernel does) but answers nothing.
 */
export function answersHealthz(target: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = http.get(new URL('/healthz', target), { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    probe.once('timeout', () => probe.destroy());
    probe.once('error', () => resolve(false));
    probe.once('close', () => resolve(false));
  });
}
