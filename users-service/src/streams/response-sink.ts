import type { ServerResponse } from 'node:http';
import { EVENT_STREAM_HEADERS } from '@community/http-kit';
import type { StreamSink } from './sse-stream';

/** A stream answered on its own request: a client of users-service's own, or a gateway of a release without the channel. */
export function responseSink(res: ServerResponse): StreamSink {
  return {
    open: () => res.writeHead(200, { ...EVENT_STREAM_HEADERS, Connection: 'keep-alive' }),
    write: (chunk) => res.write(chunk),
    end: () => {
      if (!res.writableEnded) res.end();
    },
    get backlog() {
      return res.writableLength;
    },
    onLeave(leave) {
      res.once('close', leave);
      // A client that left while what it missed was being read is gone already: no 'close' will come.
      queueMicrotask(() => {
        if (!res.socket || res.socket.destroyed) leave();
      });
    },
  };
}
