// node prometheus-check.js <url> <job>=<replicas>… -- <rule file>…
// Asks the profile's Prometheus, through its HTTP API, until every job has its replicas as targets,
// every target is up and every rule group of the rule files is loaded with all its rules, healthy
// (120 s at most). Prints what it found; exits 1 with what is missing.
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { parse } = require('yaml');

const [url, ...rest] = process.argv.slice(2);
const split = rest.indexOf('--');
const replicas = Object.fromEntries(
  rest.slice(0, split).map((pair) => [pair.split('=')[0], Number(pair.split('=')[1])]),
);
const expectedGroups = rest.slice(split + 1).flatMap((file) =>
  parse(readFileSync(file, 'utf8')).groups.map((group) => ({
    file: path.basename(file),
    name: group.name,
    rules: group.rules.length,
  })),
);

async function api(endpoint) {
  const res = await fetch(`${url}/api/v1/${endpoint}`, { signal: AbortSignal.timeout(5000) });
  const body = await res.json();
  if (body.status !== 'success') throw new Error(`${endpoint}: ${JSON.stringify(body)}`);
  return body.data;
}

/** What is still missing; empty when the targets and the rules are all there. */
async function problems() {
  const { activeTargets } = await api('targets?state=active');
  const missing = [];
  for (const [job, count] of Object.entries(replicas)) {
    const targets = activeTargets.filter((t) => t.labels.job === job);
    const up = targets.filter((t) => t.health === 'up');
    if (up.length !== count || targets.length !== count)
      missing.push(
        `${job}: ${up.length} of ${targets.length} targets up, ${count} expected ` +
          targets
            .map((t) => `[${t.scrapeUrl} ${t.health}${t.lastError ? `: ${t.lastError}` : ''}]`)
            .join(' '),
      );
  }
  const extra = activeTargets.filter((t) => !(t.labels.job in replicas)).map((t) => t.labels.job);
  if (extra.length) missing.push(`targets of no expected job: ${extra.join(', ')}`);
  const { groups } = await api('rules');
  for (const expected of expectedGroups) {
    const group = groups.find((g) => path.basename(g.file) === expected.file && g.name === expected.name);
    if (!group) missing.push(`rule group ${expected.file}/${expected.name} not loaded`);
    else if (group.rules.length !== expected.rules)
      missing.push(
        `${expected.file}/${expected.name}: ${group.rules.length} rules, ${expected.rules} expected`,
      );
    else
      for (const rule of group.rules.filter((r) => r.health === 'err'))
        missing.push(`${expected.file}/${expected.name}/${rule.name}: ${rule.lastError}`);
  }
  return { missing, targets: activeTargets.length, groups: groups.length };
}

async function main() {
  const deadline = Date.now() + 120_000;
  let last = { missing: ['no answer yet'] };
  while (Date.now() < deadline) {
    try {
      last = await problems();
      if (last.missing.length === 0) {
        const jobs = Object.entries(replicas).map(([job, count]) => `${job} ×${count}`);
        process.stdout.write(
          `${last.targets} targets up (${jobs.join(', ')}), ${last.groups} rule groups loaded\n`,
        );
        return;
      }
    } catch (err) {
      last = { missing: [err.message] };
    }
    await sleep(3000);
  }
  process.stderr.write(`Prometheus after 120 s:\n  ${last.missing.join('\n  ')}\n`);
  process.exit(1);
}

main();
