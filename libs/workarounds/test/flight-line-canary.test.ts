import { spawnSync } from 'node:child_process';
import path from 'node:path';

interface Kept {
  arrivals: number;
  /** The heap's growth past two young-generation collections, in requests' worth. */
  keptPastScavenges: number;
  /** The same past a full collection. */
  keptPastFullGc: number;
}

/**
 * 2,000 requests arriving and settling, 32 at a time, in a `map` or a FlightLine made old, in a child
 * process (test/fixtures/flight-line-retention.ts): what they left on the heap after scavenges.
 */
function keptBy(kind: 'map' | 'line'): Kept {
  const child = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--require',
      'tsx/cjs',
      path.join(__dirname, 'fixtures', 'flight-line-retention.ts'),
      kind,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as Kept;
}

describe('FlightLine', () => {
  it("without it, an old Map's discarded tables keep the requests they held alive past every scavenge", () => {
    // The retention the gateway's upstreams guard against: nearly every settled request outlives
    // the young generation, and only a full collection frees them. Should a later Node no longer
    // keep them, this fails: FlightLine is then no longer needed.
    const { arrivals, keptPastScavenges, keptPastFullGc } = keptBy('map');
    expect(keptPastScavenges).toBeGreaterThan(arrivals / 2);
    expect(keptPastFullGc).toBeLessThan(arrivals / 5);
  });

  it('with it, settled requests die young: the heap keeps little more than those in flight', () => {
    const { arrivals, keptPastScavenges } = keptBy('line');
    expect(keptPastScavenges).toBeLessThan(arrivals / 5);
  });
});
