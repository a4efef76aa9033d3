import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { isExcluded, parseDockerignore } from './dockerignore';
import { problem, type Problem } from './problems';

/** debian:<release>[-slim] or an image tag naming a Debian release, e.g. node:24-bookworm-slim. */
const DEBIAN_BASE =
  /^(?:docker\.io\/library\/)?(?:debian:[a-z]+(?:-slim)?|[a-z0-9._/-]+:[\w.]+-(?:bookworm|trixie)(?:-slim)?)$/;

// vscode-languageserver's DiagnosticSeverity: 1 error, 2 warning (3 information and 4 hint pass).
const FAILING_SEVERITY = 2;

type Fail = (instruction: Instruction | undefined, message: string) => void;

/**
 * Lints a Dockerfile with dockerfile-utils (the linter behind VS Code's Docker extension: syntax,
 * unknown instructions, misplaced flags, bad JSON forms, …) and checks what the images promise:
 * the runtime stage runs as a non-root user, node is PID 1 (exec-form CMD, no shell) so SIGTERM
 * drains, it has a HEALTHCHECK, and every base image names a version and is Debian-based.
 */
export function checkDockerfile(file: string): Problem[] {
  const source = path.relative(process.cwd(), file) || file;
  const text = readFileSync(file, 'utf8');
  const problems = lint(source, text);

  const instructions = DockerfileParser.parse(text).getInstructions();
  const froms = instructions.filter((i) => i.getKeyword() === 'FROM');
  if (!froms.length) return problems;
  const fail: Fail = (instruction, message) =>
    problems.push(
      problem(
        source,
        message,
        instruction ? `line ${instruction.getRange().start.line + 1}` : 'runtime stage',
      ),
    );
  checkBaseImages(instructions, froms, fail);
  checkRuntimeStage(instructions, froms[froms.length - 1]!, fail);
  return problems;
}

function lint(source: string, text: string): Problem[] {
  return validate(text)
    .filter((d) => (d.severity ?? 1) <= FAILING_SEVERITY)
    .map((d) =>
      problem(
        source,
        typeof d.message === 'string' ? d.message : d.message.value,
        `line ${d.range.start.line + 1}`,
      ),
    );
}

/** Every base image (not an earlier stage) names a version and is Debian-based. */
function checkBaseImages(instructions: Instruction[], froms: Instruction[], fail: Fail): void {
  const globalArgs = globalArgDefaults(instructions, froms[0]!);
  for (const from of froms) {
    const image = (from.getArgumentsContent() ?? '')
      .replace(/^--platform=\S+\s+/, '')
      .split(/\s+/)[0]!
      .replace(/\$\{?(\w+)\}?/g, (_, name: string) => globalArgs.get(name) ?? '');
    const stage = froms.some((f) =>
      new RegExp(`\\bAS\\s+${escape(image)}$`, 'i').test(f.getArgumentsContent() ?? ''),
    );
    if (!stage && (!/[:@]/.test(image.split('/').pop()!) || /:latest$/.test(image))) {
      fail(from, `base image ${image} must name a version`);
    } else if (!stage && !DEBIAN_BASE.test(image)) {
      fail(
        from,
        `base image ${image} must be Debian-based (debian:<release>-slim, node:<major>-<release>-slim): ` +
          'CI assembles those bases locally to build the images users build',
      );
    }
  }
}

/** ARGs before the first FROM may parameterise base images: check the image their defaults give. */
function globalArgDefaults(instructions: Instruction[], firstFrom: Instruction): Map<string, string> {
  const globalArgs = new Map<string, string>();
  for (const arg of instructions.filter(
    (i) => i.getKeyword() === 'ARG' && i.getRange().start.line < firstFrom.getRange().start.line,
  )) {
    const [name, value = ''] = (arg.getArgumentsContent() ?? '').split(/=(.*)/s);
    globalArgs.set(name!.trim(), value.trim());
  }
  return globalArgs;
}

/** The stage after the last FROM runs as non-root, has a HEALTHCHECK and makes node PID 1. */
function checkRuntimeStage(instructions: Instruction[], last: Instruction, fail: Fail): void {
  const runtime = instructions.filter((i) => i.getRange().start.line > last.getRange().start.line);
  const lastOf = (keyword: string) => runtime.filter((i) => i.getKeyword() === keyword).pop();
  const user = lastOf('USER');
  const userName = (user?.getArgumentsContent() ?? '').split(':')[0]!;
  if (!user || ['', 'root', '0'].includes(userName))
    fail(user, 'the runtime stage must switch to a non-root USER');
  if (!lastOf('HEALTHCHECK') || /^\s*NONE\b/i.test(lastOf('HEALTHCHECK')?.getArgumentsContent() ?? '')) {
    fail(undefined, 'the runtime stage needs a HEALTHCHECK');
  }
  const cmd = lastOf('ENTRYPOINT') ?? lastOf('CMD');
  const form = cmd?.getArgumentsContent()?.trim() ?? '';
  if (!cmd || !form.startsWith('[')) {
    fail(
      cmd,
      'start with an exec-form CMD ["node", …]: a shell form makes sh PID 1, which does not pass SIGTERM on',
    );
  } else if (!/^\[\s*"(?:node|\/usr\/local\/bin\/node|tini|\/sbin\/tini)"/.test(form)) {
    fail(cmd, 'PID 1 must be node (or tini)');
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The build context must not carry local dependencies, builds or secrets into the image. */
export function checkDockerignore(file: string): Problem[] {
  const source = path.relative(process.cwd(), file) || file;
  if (!existsSync(file)) return [problem(source, 'is missing')];
  const patterns = new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.trim()),
  );
  return ['**/node_modules', '**/dist', '.env', '.git']
    .filter((pattern) => !patterns.has(pattern))
    .map((pattern) => problem(source, `must exclude ${pattern}`));
}

/**
 * Every file or folder a COPY/ADD takes from the build context must survive .dockerignore: the
 * builder filters it out otherwise, and the build fails at that step ("1 filtered out").
 */
export function checkCopySources(dockerfile: string, dockerignore: string): Problem[] {
  const source = path.relative(process.cwd(), dockerfile) || dockerfile;
  const rules = existsSync(dockerignore) ? parseDockerignore(readFileSync(dockerignore, 'utf8')) : [];
  const problems: Problem[] = [];
  for (const instruction of DockerfileParser.parse(readFileSync(dockerfile, 'utf8')).getInstructions()) {
    if (!['COPY', 'ADD'].includes(instruction.getKeyword())) continue;
    const args = instruction.getArguments().map((a) => a.getValue());
    if (args.some((a) => /^--from=/i.test(a))) continue;
    const paths = copyPaths(instruction.getArgumentsContent() ?? '', args);
    for (const src of paths.slice(0, -1)) {
      if (/^[a-z]+:\/\//i.test(src) || !isExcluded(rules, src)) continue;
      problems.push(
        problem(
          source,
          `${instruction.getKeyword()} ${src}: excluded by .dockerignore, so the build cannot find it`,
          `line ${instruction.getRange().start.line + 1}`,
        ),
      );
    }
  }
  return problems;
}

/** The paths of a COPY/ADD, in shell form or JSON (exec) form, without its flags. */
function copyPaths(content: string, args: string[]): string[] {
  const text = content.replace(/^(\s*--\S+\s+)*/, '').trim();
  if (text.startsWith('[')) {
    try {
      return JSON.parse(text) as string[];
    } catch {
      return [];
    }
  }
  return args.filter((a) => !a.startsWith('--'));
}
