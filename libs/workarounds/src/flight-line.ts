/** A place in a {@link FlightLine}: the entry itself carries its links. */
export interface InLine<T> {
  prev: T | null;
  next: T | null;
}

/**
 * Entries in arrival order, oldest first: adding at the end and removing from anywhere take O(1),
 * and a removed entry keeps no link into the line, nor the line to it. The gateway's upstreams keep
 * the requests waiting on a service in one.
 *
 * Why not a Map: the requests waiting on a service change with every request, and a Map under
 * constant insert and delete is rebuilt every few dozen of them. V8 allocates the new table in the
 * old generation when the old one is there, and the discarded table keeps its entries and a link to
 * its successor: once one table was old, each discarded one kept the requests it held alive past
 * the young generation until the next full collection (bench/RESULTS.md, "Garbage kept alive: a
 * Map's tables and express's prototype change"). test/flight-line-canary.test.ts shows the
 * retention and fails the day V8 no longer has it; test/flight-line.test.ts checks the line itself.
 */
export class FlightLine<T extends InLine<T>> {
  private head: T | null = null;
  private tail: T | null = null;

  /** The entry that has waited longest, if any. */
  get oldest(): T | null {
    return this.head;
  }

  add(entry: T): void {
    entry.prev = this.tail;
    entry.next = null;
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
  }

  /** Takes the entry out of the line: false when it was not in it (settled already). */
  remove(entry: T): boolean {
    if (!this.has(entry)) return false;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = null;
    entry.next = null;
    return true;
  }

  has(entry: T): boolean {
    return entry.prev !== null || this.head === entry;
  }

  /** Oldest first; the entry given out may be removed before the next is asked for. */
  *[Symbol.iterator](): IterableIterator<T> {
    let entry = this.head;
    while (entry) {
      const next = entry.next;
      yield entry;
      entry = next;
    }
  }
}
