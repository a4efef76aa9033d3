/**
 * Reads a JUnit XML report strictly enough to trust its counts: well-formed (every tag closed in
 * order, one root, attributes quoted, only XML's own entities) and each suite's counts equal to its
 * test cases. Used by the reporter's test and the container test, which have no XML library.
 */
export interface JUnitCounts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

export interface JUnitReport extends JUnitCounts {
  suites: (JUnitCounts & { name: string })[];
}

interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Element[];
}

const TOKEN =
  /<\?xml[^?]*\?>|<!--[\s\S]*?-->|<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
const ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;

function checkText(text: string, at: number): void {
  if (ENTITY.test(text)) throw new Error(`not well-formed: a bare & at offset ${at}`);
}

function parse(xml: string): Element {
  const root: Element = { name: '#document', attributes: {}, children: [] };
  const open: Element[] = [root];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < xml.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(xml);
    if (!match) throw new Error(`not well-formed at offset ${at}: ${xml.slice(at, at + 40)}`);
    const [, closing, name, attrs, selfClosing, text] = match;
    const parent = open.at(-1)!;
    if (text !== undefined) {
      if (parent === root && text.trim()) throw new Error(`text outside the root element at offset ${at}`);
      checkText(text, at);
    } else if (name && closing) {
      if (parent.name !== name) throw new Error(`</${name}> closes <${parent.name}> at offset ${at}`);
      open.pop();
    } else if (name) {
      const attributes: Record<string, string> = {};
      for (const [, key, value] of attrs!.matchAll(/([A-Za-z_][\w.:-]*)="([^"<]*)"/g)) {
        checkText(value!, at);
        attributes[key!] = value!;
      }
      const element: Element = { name, attributes, children: [] };
      parent.children.push(element);
      if (!selfClosing) open.push(element);
    }
  }
  if (open.length !== 1) throw new Error(`<${open.at(-1)!.name}> is never closed`);
  if (root.children.length !== 1) throw new Error('an XML document has exactly one root element');
  return root.children[0]!;
}

function counts(element: Element): JUnitCounts {
  const number = (name: string) => {
    const value = Number(element.attributes[name] ?? 'NaN');
    if (!Number.isInteger(value) || value < 0) throw new Error(`<${element.name}> has no count ${name}`);
    return value;
  };
  return {
    tests: number('tests'),
    failures: number('failures'),
    errors: number('errors'),
    skipped: number('skipped'),
  };
}

function caseCounts(suite: Element): JUnitCounts {
  const cases = suite.children.filter((child) => child.name === 'testcase');
  const having = (name: string) =>
    cases.filter((c) => c.children.some((child) => child.name === name)).length;
  return {
    tests: cases.length,
    failures: having('failure'),
    errors: having('error'),
    skipped: having('skipped'),
  };
}

/** The report's counts, after checking the document and that every count adds up. */
export function readJUnit(xml: string): JUnitReport {
  const root = parse(xml);
  if (root.name !== 'testsuites') throw new Error(`the root element is <${root.name}>, not <testsuites>`);
  const suites = root.children.filter((child) => child.name === 'testsuite');
  const report: JUnitReport = { ...counts(root), suites: [] };
  const sum: JUnitCounts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const suite of suites) {
    const declared = counts(suite);
    const found = caseCounts(suite);
    if (JSON.stringify(declared) !== JSON.stringify(found)) {
      throw new Error(
        `suite ${suite.attributes.name}: declares ${JSON.stringify(declared)}, holds ${JSON.stringify(found)}`,
      );
    }
    for (const key of Object.keys(sum) as (keyof JUnitCounts)[]) sum[key] += declared[key];
    report.suites.push({ name: suite.attributes.name ?? '', ...declared });
  }
  if (JSON.stringify(sum) !== JSON.stringify(counts(root))) {
    throw new Error(
      `<testsuites> declares ${JSON.stringify(counts(root))}, its suites add up to ${JSON.stringify(sum)}`,
    );
  }
  return report;
}
