/**
 * Templates (`/api/v1/posts/{id}`, `/avatars/{id}.svg`) indexed by segment: a segment is a literal
 * (`posts`), a parameter (`{id}`: any non-empty segment) or, rarely, a pattern (`{id}.svg`). Finding
 * what a path matches walks its segments rather than testing every template, which showed in the
 * gateway's profile when each request tested them all (bench/RESULTS.md).
 */
interface PathNode<T> {
  literals: Map<string, PathNode<T>>;
  parameter?: PathNode<T>;
  patterns: { pattern: RegExp; node: PathNode<T> }[];
  /** The values declared at exactly this template, in the order they were added. */
  values: T[];
}

const PARAMETER = /^\{\w+\}$/;
const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
const newNode = <T>(): PathNode<T> => ({ literals: new Map(), patterns: [], values: [] });

/** Paths remembered, and the longest one: a client sending ever new paths costs at most ~2 MB. */
const MEMO_ENTRIES = 4096;
const MEMO_PATH_LENGTH = 256;

export class PathIndex<T> {
  private readonly root = newNode<T>();
  private readonly order = new Map<T, number>();
  /** Most requests repeat a path seen before (a post read again): the tree is walked once per path. */
  private readonly memo = new Map<string, readonly T[]>();

  constructor(entries: Iterable<readonly [template: string, value: T]>) {
    for (const [template, value] of entries) this.add(template, value);
  }

  /** The values declared at templates this path matches, in the order they were added. */
  at(path: string): readonly T[] {
    let values = this.memo.get(path);
    if (values !== undefined) return values;
    values = this.lookUp(path);
    if (path.length <= MEMO_PATH_LENGTH) {
      if (this.memo.size >= MEMO_ENTRIES) this.memo.clear();
      this.memo.set(path, values);
    }
    return values;
  }

  private add(template: string, value: T): void {
    let node = this.root;
    for (const segment of template.split('/').slice(1)) {
      if (PARAMETER.test(segment)) node = node.parameter ??= newNode();
      else if (segment.includes('{')) {
        const pattern = new RegExp(`^${escape(segment).replace(/\{\w+\}/g, '[^/]+')}$`);
        let entry = node.patterns.find((p) => p.pattern.source === pattern.source);
        if (!entry) node.patterns.push((entry = { pattern, node: newNode() }));
        node = entry.node;
      } else {
        let next = node.literals.get(segment);
        if (!next) node.literals.set(segment, (next = newNode()));
        node = next;
      }
    }
    node.values.push(value);
    this.order.set(value, this.order.size);
  }

  private lookUp(path: string): readonly T[] {
    const segments = path.split('/');
    if (segments[0] !== '') return [];
    // Usually one node matches, whose values are in order already; a path that is both a literal and
    // a parameter of the templates (`/users/me`, `/users/{id}`) merges two.
    const found: T[][] = [];
    const walk = (node: PathNode<T>, at: number) => {
      if (at === segments.length) {
        if (node.values.length) found.push(node.values);
        return;
      }
      const segment = segments[at]!;
      const literal = node.literals.get(segment);
      if (literal) walk(literal, at + 1);
      if (segment === '') return;
      if (node.parameter) walk(node.parameter, at + 1);
      for (const { pattern, node: next } of node.patterns) if (pattern.test(segment)) walk(next, at + 1);
    };
    walk(this.root, 1);
    if (found.length < 2) return found[0] ?? [];
    return found.flat().sort((a, b) => this.order.get(a)! - this.order.get(b)!);
  }
}
