import { FlightLine, type InLine } from '../src/flight-line';

interface Entry extends InLine<Entry> {
  id: number;
}

const entry = (id: number): Entry => ({ id, prev: null, next: null });
const ids = (line: FlightLine<Entry>) => [...line].map((e) => e.id);

describe('a flight line', () => {
  it('keeps arrival order, oldest first, whatever is taken out of it', () => {
    const line = new FlightLine<Entry>();
    const [a, b, c, d] = [1, 2, 3, 4].map(entry);
    for (const e of [a, b, c, d]) line.add(e!);
    expect(ids(line)).toEqual([1, 2, 3, 4]);
    expect(line.oldest).toBe(a);

    expect(line.remove(c!)).toBe(true);
    expect(ids(line)).toEqual([1, 2, 4]);
    expect(line.remove(a!)).toBe(true);
    expect(line.oldest).toBe(b);
    expect(line.remove(d!)).toBe(true);
    expect(ids(line)).toEqual([2]);
    line.add(c!);
    expect(ids(line)).toEqual([2, 3]);
  });

  it('takes an entry out once: a second removal, or one never added, finds nothing', () => {
    const line = new FlightLine<Entry>();
    const [a, b] = [1, 2].map(entry);
    line.add(a!);
    expect(line.has(a!)).toBe(true);
    expect(line.has(b!)).toBe(false);
    expect(line.remove(b!)).toBe(false);
    expect(line.remove(a!)).toBe(true);
    expect(line.remove(a!)).toBe(false);
    expect(line.has(a!)).toBe(false);
    expect(line.oldest).toBeNull();
    expect(ids(line)).toEqual([]);
  });

  it('leaves a removed entry with no link into the line, so it keeps nothing of it alive', () => {
    const line = new FlightLine<Entry>();
    const [a, b, c] = [1, 2, 3].map(entry);
    for (const e of [a, b, c]) line.add(e!);
    line.remove(b!);
    expect(b).toMatchObject({ prev: null, next: null });
    expect(a!.next).toBe(c);
    expect(c!.prev).toBe(a);
  });

  it('lets the entry in hand be removed while the line is walked', () => {
    const line = new FlightLine<Entry>();
    const entries = [1, 2, 3, 4, 5].map(entry);
    for (const e of entries) line.add(e);
    const seen: number[] = [];
    for (const e of line) {
      seen.push(e.id);
      if (e.id % 2 === 1) line.remove(e);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(ids(line)).toEqual([2, 4]);
  });
});
