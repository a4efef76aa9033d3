import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';

/**
 * The channel between a gateway process and users-service (DESIGN.md §18; the decision stands in
 * docs/api.md, under Notifications): one upgraded connection carries every notification stream the
 * gateway relays, so a stream costs neither side a connection, a request or a parser of its own.
 * Each frame is one line of JSON.
 *
 * The gateway opens the channel with `GET` {@link STREAM_CHANNEL_PATH}, `Upgrade:`
 * {@link STREAM_CHANNEL_PROTOCOL} and its identity signed with no actor; a service that does not
 * know the path answers it like any request (a 404), and the gateway relays each stream on a
 * connection of its own instead.
 */
export const STREAM_CHANNEL_PATH = '/internal/stream-channel';
export const STREAM_CHANNEL_PROTOCOL = 'community-streams/1';

/**
 * The gateway's frames: a stream opened as the request it relays (its path and headers), or closed.
 * Their sizes are bounded by the line's: whatever a client's request holds must answer that client,
 * never end the channel every other stream is on.
 */
export const gatewayFrame = z.union([
  z.strictObject({
    open: z.number().int().positive(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
  }),
  z.strictObject({ close: z.number().int().positive() }),
]);
export type GatewayFrame = z.infer<typeof gatewayFrame>;

/**
 * users-service's frames, about the stream `id`: its head (`status` 200), a piece of it (`data`),
 * its end, or the error that answers it instead (`status`, `headers`, `body`). `goaway`: the process
 * is stopping: open nothing more on this channel.
 */
export type ServiceFrame =
  | { id: number; status: 200 }
  | { id: number; data: string }
  | { id: number; end: true }
  | { id: number; status: number; headers: Record<string, string>; body: unknown }
  | { goaway: true };

/** A frame as it goes on the wire. */
export const frameLine = (frame: GatewayFrame | ServiceFrame): string => `${JSON.stringify(frame)}\n`;

/**
 * A channel's socket as both ends keep it: each frame goes out at once (a notification someone
 * waits for, or a stream's opening: no Nagle delay), and an error or the peer's end closes it (an
 * HTTP server's sockets would stay half-open: a peer gone is gone).
 */
export function holdChannel(socket: Socket): void {
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  socket.once('end', () => socket.destroy());
}

/**
 * Reads a channel's frames, each line parsed as JSON; a line over `maxLineBytes` or one that is
 * not JSON destroys the socket (the peer is broken, and all its streams end).
 */
export function readFrames(
  socket: Duplex,
  onFrame: (frame: unknown) => void,
  maxLineBytes: number,
  head?: Buffer,
): void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const take = (chunk: Buffer) => {
    pending += decoder.write(chunk);
    let start = 0;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
      const line = pending.slice(start, end);
      start = end + 1;
      let frame: unknown;
      try {
        frame = JSON.parse(line);
      } catch {
        socket.destroy(new Error('a stream channel frame is not JSON'));
        return;
      }
      onFrame(frame);
      if (socket.destroyed) return;
    }
    pending = pending.slice(start);
    if (pending.length > maxLineBytes) socket.destroy(new Error('a stream channel frame is too long'));
  };
  if (head?.length) take(head);
  socket.on('data', take);
}
