import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkCopySources, checkDockerfile, checkDockerignore } from '../validate/dockerfile';
import { formatProblem } from '../validate/problems';

const root = path.resolve(__dirname, '../..');
const original = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const scratch = mkdtempSync(path.join(tmpdir(), 'dockerfile-'));

/** Lints the repository's Dockerfile with one edit (which must apply). */
function lintEdited(edit: (text: string) => string): string[] {
  const edited = edit(original);
  expect(edited).not.toBe(original);
  const file = path.join(scratch, 'Dockerfile');
  writeFileSync(file, edited);
  return checkDockerfile(file).map((p) => formatProblem({ ...p, source: 'Dockerfile' }));
}

describe('Dockerfile', () => {
  it('passes the linter and keeps the image promises, as does .dockerignore', () => {
    expect(checkDockerfile(path.join(root, 'Dockerfile'))).toEqual([]);
    expect(checkDockerignore(path.join(root, '.dockerignore'))).toEqual([]);
    expect(checkCopySources(path.join(root, 'Dockerfile'), path.join(root, '.dockerignore'))).toEqual([]);
  });

  it('copies every workspace manifest and ships every runtime library', () => {
    const workspaces = (
      JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] }
    ).workspaces.flatMap((pattern) =>
      pattern.endsWith('/*')
        ? readdirSync(path.join(root, pattern.slice(0, -2))).map((name) => `${pattern.slice(0, -2)}/${name}`)
        : [pattern],
    );
    const shipped = /for dir in ([^;]+?) "\$\{SERVICE\}"/.exec(original)?.[1]?.split(/\s+/) ?? [];
    // Libraries no service runs: the tests' harness and the SDK for the API's clients.
    const notRuntime = new Set(['libs/test-harness', 'libs/sdk']);
    for (const dir of workspaces) {
      expect(original).toContain(`COPY ${dir}/package.json ${dir}/`);
      if (dir.startsWith('libs/') && !notRuntime.has(dir)) expect(shipped).toContain(dir);
    }
  });

  it('rejects an unknown instruction', () => {
    expect(lintEdited((t) => t.replace('RUN npm run build', 'RUNN npm run build'))).toEqual([
      expect.stringMatching(/^Dockerfile \[line \d+\]: Unknown instruction: RUNN$/),
    ]);
  });

  it('rejects a malformed HEALTHCHECK flag', () => {
    expect(lintEdited((t) => t.replace('--interval=10s', '--interval=10'))).toEqual([
      expect.stringMatching(/^Dockerfile \[line \d+\]: .*duration/i),
    ]);
  });

  it('refuses a shell-form CMD, which makes sh PID 1 instead of node', () => {
    const problems = lintEdited((t) =>
      t.replace('CMD ["node", "--enable-source-maps", "dist/main.js"]', 'CMD node dist/main.js'),
    );
    expect(problems).toEqual([expect.stringContaining('exec-form CMD ["node", …]')]);
  });

  it('refuses a runtime stage that runs as root', () => {
    expect(lintEdited((t) => t.replace('USER 10001:10001', 'USER root'))).toEqual([
      expect.stringContaining('must switch to a non-root USER'),
    ]);
  });

  it('refuses a runtime stage without a HEALTHCHECK', () => {
    expect(lintEdited((t) => t.replace(/^HEALTHCHECK .*$/m, ''))).toEqual([
      'Dockerfile [runtime stage]: the runtime stage needs a HEALTHCHECK',
    ]);
  });

  it('refuses a base image without a version', () => {
    expect(lintEdited((t) => t.replace('FROM debian:${DEBIAN_RELEASE}-slim', 'FROM debian:latest'))).toEqual([
      expect.stringMatching(/base image debian:latest must name a version/),
    ]);
  });

  it('refuses a base image CI cannot assemble, such as Alpine', () => {
    expect(lintEdited((t) => t.replace('FROM debian:${DEBIAN_RELEASE}-slim', 'FROM alpine:3.22'))).toEqual([
      expect.stringMatching(/base image alpine:3\.22 must be Debian-based/),
    ]);
  });

  it('refuses a COPY of a file that .dockerignore leaves out of the build context', () => {
    // The bug CI's first image build found: e2e was ignored while its manifest was copied.
    const ignore = readFileSync(path.join(root, '.dockerignore'), 'utf8');
    const file = path.join(scratch, '.dockerignore');
    writeFileSync(file, ignore.replace('!e2e/package.json\n', ''));
    expect(ignore).not.toBe(readFileSync(file, 'utf8'));
    expect(checkCopySources(path.join(root, 'Dockerfile'), file).map(formatProblem)).toEqual([
      expect.stringMatching(
        /^Dockerfile \[line \d+\]: COPY e2e\/package\.json: excluded by \.dockerignore, so the build cannot find it$/,
      ),
    ]);
  });

  it('reads .dockerignore as the builder does: last match wins, folders exclude their contents', () => {
    const file = path.join(scratch, '.dockerignore');
    writeFileSync(file, '**/test\ndocs\n!docs/keep.md\n*.log\n');
    const copies = [
      'src/test/a.ts',
      'docs/keep.md',
      'docs/other.md',
      'app.log',
      'src/app.log',
      'src/main.ts',
    ];
    const dockerfile = path.join(scratch, 'Dockerfile.copies');
    writeFileSync(
      dockerfile,
      `FROM debian:bookworm-slim\n${copies.map((c) => `COPY ${c} /x/`).join('\n')}\n`,
    );
    expect(checkCopySources(dockerfile, file).map((p) => p.message.split(':')[0])).toEqual([
      'COPY src/test/a.ts',
      'COPY docs/other.md',
      'COPY app.log',
    ]);
  });

  it('refuses a .dockerignore that would send secrets and local builds', () => {
    const file = path.join(scratch, '.dockerignore');
    writeFileSync(file, '.git\n**/node_modules\n');
    expect(checkDockerignore(file).map((p) => p.message)).toEqual([
      'must exclude **/dist',
      'must exclude .env',
    ]);
  });
});
