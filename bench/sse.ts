/**
 * A notification stream read as Server-Sent Events, for the benches that time what arrives on it
 * (bench:notifications, bench:streams).
 */
import http from 'node:http';
import { percentile } from './measure';

export interface Stream {
  /** Arrival time of each reply notification, by the comment it is about. */
  arrived: Map<number, number>;
  /** Who waits for the notification of which comment. */
  waiters: Map<number, () => void>;
  /** Arrival time of each `: keep-alive` heartbeat. */
  heartbeats: number[];
  /** Resolves to the answer's status once the stream has said `: open` (or was refused). */
  opened: Promise<number>;
  close(): void;
}

/** Opens `url` with `key`, timing each reply notification and heartbeat as its frame completes. */
export function openStream(url: string, key: string): Stream {
  const arrived = new Map<number, number>();
  const waiters = new Map<number, () => void>();
  const heartbeats: number[] = [];
  let req: http.ClientRequest;
  const opened = new Promise<number>((resolve, reject) => {
    req = http.get(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        if (buffer.startsWith(': open')) resolve(res.statusCode ?? 0);
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith(': keep-alive')) heartbeats.push(performance.now());
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!data) continue;
          const item = JSON.parse(data) as { kind: string; subject: { id: number } };
          if (item.kind !== 'reply') continue;
          arrived.set(item.subject.id, performance.now());
          waiters.get(item.subject.id)?.();
        }
      });
      res.on('error', () => undefined);
      if (res.statusCode !== 200) resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  return { arrived, waiters, heartbeats, opened, close: () => req.destroy() };
}

/** When the reply notification about `commentId` arrived on `stream` (waiting for it if need be). */
export function arrival(stream: Stream, commentId: number, timeoutMs = 10_000): Promise<number> {
  const known = stream.arrived.get(commentId);
  if (known !== undefined) return Promise.resolve(known);
  const { waiters } = stream;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no notification for comment ${commentId}`)), timeoutMs);
    waiters.set(commentId, () => {
      clearTimeout(timer);
      waiters.delete(commentId);
      resolve(stream.arrived.get(commentId)!);
    });
  });
}

/** `n=… p50 … p90 … p99 … max …` of a list of milliseconds. */
export function summary(ms: number[]): string {
  if (ms.length === 0) return 'n=0';
  const at = (p: number) => percentile(ms, p).toFixed(1);
  return `n=${ms.length} p50 ${at(50)} ms, p90 ${at(90)} ms, p99 ${at(99)} ms, max ${at(100)} ms`;
}
