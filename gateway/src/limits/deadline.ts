/** `work` had no answer by its deadline. */
export class DeadlineExceeded extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/**
 * Settles as `work` does, or rejects with DeadlineExceeded when it has no answer `ms` after the
 * call. A timer that fires late because this process was busy (CPU starvation, a long garbage
 * collection) runs before the event loop reads its sockets, so an answer that came in time would
 * still be sitting unread: the deadline is declared missed only after the loop has looked once
 * more (setImmediate runs after the poll phase).
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let pending = true;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!pending) return;
          pending = false;
          reject(new DeadlineExceeded(ms));
        }),
      ms,
    );
    work.then(
      (value) => {
        if (!pending) return;
        pending = false;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (!pending) return;
        pending = false;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
