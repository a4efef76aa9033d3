/**
 * The request ids of the answers a test received, so a failure names the exchanges to look up in the
 * stack's logs and traces. The client records into the test's global (environment.ts starts a list
 * per test); outside jest nothing is kept.
 */
const KEY = '__e2eRequestIds';
const KEPT = 20;

type Holder = { [KEY]?: string[] };

export function rememberRequestId(id: string): void {
  const list = (globalThis as Holder)[KEY];
  if (!list) return;
  list.push(id);
  if (list.length > KEPT) list.shift();
}

export function startRecording(global: object): void {
  (global as Holder)[KEY] = [];
}

export function recorded(global: object): string[] {
  return (global as Holder)[KEY] ?? [];
}

const NOTE = 'request ids of the last answers (newest last):';

/** The line a failure gets: the last few answers' ids. */
export const requestIdNote = (ids: string[]) => `${NOTE} ${ids.slice(-3).join(', ')}`;

/** Every request id a failure message names: `(request id …)` of expectStatus, and the note's. */
export function requestIdsIn(message: string): string[] {
  const ids = [...message.matchAll(/\(request id ([A-Za-z0-9._:-]+)\)/g)].map((m) => m[1]!);
  const note = message.split('\n').find((line) => line.includes(NOTE));
  if (note)
    ids.push(
      ...note
        .slice(note.indexOf(NOTE) + NOTE.length)
        .split(',')
        .map((id) => id.trim()),
    );
  return [...new Set(ids.filter(Boolean))];
}
