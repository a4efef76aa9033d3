import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatReport, runLoad, type LoadOptions } from '../../src/load/run-load';
import type { OwnedStack } from '../../src/stack/owned-stack';
import { openOwnedTarget, type Target } from '../../src/target';

/**
 * A short run inside `npm test`; `npm run test:load` runs this file alone for E2E_LOAD_SECONDS
 * (default 60). Loopback only, a bounded rate with a bounded number of clients.
 */
const options: LoadOptions = {
  seconds: Number(process.env.E2E_LOAD_SECONDS || 10),
  rate: Number(process.env.E2E_LOAD_RATE || 150),
  clients: Number(process.env.E2E_LOAD_CLIENTS || 8),
  warmupSeconds: Number(process.env.E2E_LOAD_WARMUP_SECONDS || 3),
};

/**
 * Growth of a process's resident memory over the measured phase that still counts as stable: young
 * generations and pools fill up early on (the gateway runs with --max-semi-space-size=32, up to 96 MiB
 * of young space by design); a leak keeps going.
 */
const RSS_HEADROOM_KIB = 64 * 1024;

let target: Target & { owned: OwnedStack };
beforeAll(async () => {
  target = await openOwnedTarget('load');
}, 120_000);
afterAll(() => target?.close(), 60_000);

it(
  `serves ${options.seconds} s of mixed reads and writes with no 5xx and steady memory`,
  async () => {
    const report = await runLoad(target, options);
    const text = formatReport(report, options);
    process.stderr.write(`\n${text}\n`);
    const results = path.join(__dirname, '../../results');
    mkdirSync(results, { recursive: true });
    writeFileSync(
      path.join(results, `load-${options.seconds}s.json`),
      JSON.stringify({ options, report }, null, 2),
    );

    expect({
      unexpected5xx: report.unexpected5xx,
      noAnswer: report.noAnswer,
      unexpected: report.unexpected,
    }).toEqual({
      unexpected5xx: 0,
      noAnswer: 0,
      unexpected: 0,
    });
    expect(report.requests).toBeGreaterThan(options.seconds * 10);
    // Nothing lost under load: every post's event reached the webhook receiver.
    expect(report.webhooks.delivered).toBe(report.webhooks.posts);
    for (const [name, { start, end }] of Object.entries(report.rss)) {
      expect([name, end - start < Math.max(RSS_HEADROOM_KIB, start * 0.5)]).toEqual([name, true]);
    }
  },
  (options.seconds + options.warmupSeconds) * 1000 + 90_000,
);
