import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keptTickObject, keepTickObjectShape } from '../src/tick-shape';

/**
 * V8's feedback for the object literal process.nextTick builds each tick object with, after major
 * collections that keep no unused map (as the memory reducer's after an idle spell do) ran while no
 * tick object was alive. The child runs without tsx's module loader thread, which keeps tick objects
 * of its own alive and would hide the loss.
 */
function literalFeedback(keep: boolean): string[] {
  // V8 prints to the file itself: to a pipe, the end of its print was sometimes lost.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tick-feedback-'));
  const out = path.join(dir, 'stdout');
  const fd = fs.openSync(out, 'w');
  const child = spawnSync(
    process.execPath,
    [
      '--allow-natives-syntax',
      '--expose-gc',
      '--retain-maps-for-n-gc=0',
      '--require',
      'tsx/cjs',
      path.join(__dirname, 'fixtures', 'tick-feedback.ts'),
      keep ? 'keep' : 'plain',
    ],
    { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', fd, 'pipe'] },
  );
  fs.closeSync(fd);
  const printed = fs.readFileSync(out, 'utf8');
  fs.rmSync(dir, { recursive: true });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!);
}

describe('keepTickObjectShape', () => {
  it("without it, this Node's tick object sites turn megamorphic for good once their maps died", () => {
    // The loss the service runtime guards against. Should a later Node no longer show it, this
    // fails: keepTickObjectShape is then no longer needed.
    const feedback = literalFeedback(false);
    expect(feedback).toHaveLength(4);
    expect(feedback).toContain('MEGAMORPHIC');
  });

  it('with it, every site of the tick object literal stays monomorphic through those collections', () => {
    expect(literalFeedback(true)).toEqual(['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
  });

  it('keeps one tick object, however often it is called', () => {
    expect(keptTickObject()).toBeUndefined();
    keepTickObjectShape();
    const kept = keptTickObject();
    // The object process.nextTick made, with its callback and arguments.
    expect(Object.keys(kept ?? {})).toEqual(['callback', 'args']);
    keepTickObjectShape();
    expect(keptTickObject()).toBe(kept);
  });
});
