import http from 'node:http';
import express, { type Express } from 'express';
import { JsonStream } from '../src/json-stream';
import { listen } from '../src/server';

/** 200 pieces of 64 KiB: far more than loopback's buffers hold, so a slow reader makes writes wait. */
const PIECES = 200;
const PIECE = JSON.stringify('x'.repeat(64 * 1024));

/** Serves `app` on loopback while `client` talks to it. */
async function serving<T>(app: Express, client: (port: number) => Promise<T>): Promise<T> {
  const server = await listen(app, 0, '127.0.0.1');
  try {
    return await client(server.port);
  } finally {
    await server.close(1_000);
  }
}

interface Served {
  /** The answer's `close` and `error` listeners beyond those it had before the first piece, after each piece. */
  extraListeners: number[];
  drains: number;
}

/** Serves one JsonStream of PIECES to a client that pauses after every chunk it reads. */
async function streamToSlowReader(): Promise<{ served: Served; body: string }> {
  let served!: Served;
  const app = express();
  app.get('/', async (_req, res) => {
    const out = new JsonStream(res);
    out.begin();
    const listeners = () => res.listenerCount('close') + res.listenerCount('error');
    const before = listeners();
    served = { extraListeners: [], drains: 0 };
    res.on('drain', () => served.drains++);
    await out.write('[');
    for (let i = 0; i < PIECES; i++) {
      await out.write(i === 0 ? PIECE : `,${PIECE}`);
      served.extraListeners.push(listeners() - before);
    }
    await out.write(']');
    out.end();
  });
  const body = await serving(
    app,
    (port) =>
      new Promise<string>((resolve, reject) => {
        http
          .get({ port, host: '127.0.0.1', path: '/' }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => {
              chunks.push(chunk);
              res.pause();
              setTimeout(() => res.resume(), 1);
            });
            res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          })
          .on('error', reject);
      }),
  );
  return { served, body };
}

/** Serves endless pieces to a client that reads the first chunk and leaves: how the writing ended. */
async function streamToLeavingReader(): Promise<unknown> {
  let ended!: Promise<unknown>;
  const app = express();
  app.get('/', (_req, res) => {
    const out = new JsonStream(res);
    out.begin();
    ended = (async () => {
      for (;;) await out.write(PIECE);
    })().catch((err: unknown) => err);
  });
  return serving(app, async (port) => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ port, host: '127.0.0.1', path: '/' }, (res) =>
        res.once('data', () => {
          req.destroy();
          resolve();
        }),
      );
      req.on('error', () => undefined);
      setTimeout(() => reject(new Error('no answer')), 5_000).unref();
    });
    return await ended;
  });
}

describe('JsonStream', () => {
  it('waits for a slow reader without leaving a listener behind each wait', async () => {
    const { served, body } = await streamToSlowReader();
    expect(served.drains).toBeGreaterThan(10);
    // Each wait listens for `drain` or `close`; whichever comes, the other listener goes too.
    expect(Math.max(...served.extraListeners)).toBe(0);
    expect(JSON.parse(body)).toHaveLength(PIECES);
  }, 30_000);

  it('stops waiting when the client leaves: the next write fails', async () => {
    const ended = await streamToLeavingReader();
    expect(ended).toEqual(new Error('the client went away'));
  }, 30_000);
});
