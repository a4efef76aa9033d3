/**
 * The head of every Server-Sent Events answer (DESIGN.md §13): users-service opens its streams with
 * it, and the gateway answers a `HEAD` on a stream with it at once (§21).
 */
export const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // Any proxy in front (nginx and its kin) must pass each event on at once.
  'X-Accel-Buffering': 'no',
} as const;
