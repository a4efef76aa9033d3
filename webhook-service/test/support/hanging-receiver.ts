import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A receiver on 127.0.0.1 that accepts every connection and never answers: what an attacker's
 * endpoint looks like (issue 41, finding 5). It counts the connections open now and the most at once.
 */
export async function startHangingReceiver() {
  const sockets = new Set<net.Socket>();
  const counts = { accepted: 0, open: 0, mostOpen: 0 };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    counts.accepted++;
    counts.open++;
    counts.mostOpen = Math.max(counts.mostOpen, counts.open);
    // Reads and drops what is sent, never answering: reading is how it sees a client hang up.
    socket.resume();
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      counts.open--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    counts,
    /** Starts counting the most open at once afresh. */
    resetMostOpen() {
      counts.mostOpen = counts.open;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export type HangingReceiver = Awaited<ReturnType<typeof startHangingReceiver>>;
