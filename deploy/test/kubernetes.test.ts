import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkKubernetesPolicy } from '../validate/k8s-policy';
import { renderKustomization } from '../validate/kustomize';
import { parseManifests, type Manifest } from '../validate/manifests';
import { formatProblem } from '../validate/problems';

const root = path.resolve(__dirname, '../..');
const overlay = (name: string) => path.join(root, 'deploy/k8s/overlays', name);

/**
 * `npm run validate:deploy` with arguments. It runs as its own process because kubernetes-models,
 * which carries the Kubernetes schemas, is an ES module that jest's CommonJS runtime cannot load.
 */
function validateCli(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'deploy/validate/main.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** A kustomization on top of the prod overlay: extra resource files and JSON patches. */
function brokenOverlay(parts: { patches?: string; files?: Record<string, string> }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'overlay-'));
  const files = parts.files ?? {};
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const resources = [path.relative(dir, overlay('prod')), ...Object.keys(files)];
  writeFileSync(
    path.join(dir, 'kustomization.yaml'),
    `resources:\n${resources.map((r) => `  - ${r}\n`).join('')}${parts.patches ? `patches:\n${parts.patches}` : ''}`,
  );
  return dir;
}

describe('Kubernetes manifests through the validator', () => {
  it('renders dev and prod, valid against the Kubernetes 1.36 schemas, strict fields and policy', () => {
    const { status, output } = validateCli('--kustomize', overlay('dev'), '--kustomize', overlay('prod'));
    expect(output).toMatch(/^ok {3}deploy\/k8s\/overlays\/dev: rendered/m);
    expect(output).toMatch(/^ok {3}deploy\/k8s\/overlays\/prod: rendered/m);
    expect(output).toMatch(/kubernetes-models 5\.\d+\.\d+ \(Kubernetes 1\.36\), kustomize v\d/);
    expect(status).toBe(0);
  }, 60_000);

  it('fails on values the schema forbids, an unknown kind and a beta API (removed or off by default)', () => {
    const dir = brokenOverlay({
      patches: `  - target: { kind: HorizontalPodAutoscaler, name: gateway }
    patch: '[{ "op": "replace", "path": "/spec/maxReplicas", "value": "many" }]'
  - target: { kind: Ingress }
    patch: '[{ "op": "replace", "path": "/spec/rules/0/http/paths/0/pathType", "value": "Prefixes" }]'
`,
      files: {
        'old-pdb.yaml': `apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: { name: legacy }
spec: { maxUnavailable: 1, selector: { matchLabels: { app: legacy } } }
`,
        'typo.yaml': `apiVersion: apps/v1
kind: Deploymnet
metadata: { name: typo }
`,
      },
    });
    const { status, output } = validateCli('--kustomize', dir);
    expect(output).toContain('[HorizontalPodAutoscaler/gateway]: /spec/maxReplicas must be integer');
    expect(output).toContain(
      '[Ingress/gateway]: /spec/rules/0/http/paths/0/pathType must be equal to one of the allowed values',
    );
    expect(output).toContain(
      '[PodDisruptionBudget/legacy]: policy/v1beta1 PodDisruptionBudget is not a GA API of Kubernetes 1.36',
    );
    expect(output).toContain('[Deploymnet/typo]: apps/v1 Deploymnet is not an API of Kubernetes 1.36');
    expect(status).toBe(1);
  }, 60_000);

  it('fails on a misspelt field, which the API server would drop (kubectl applies strictly)', () => {
    const dir = brokenOverlay({
      patches: `  - target: { kind: Deployment, name: posts-service }
    patch: '[{ "op": "add", "path": "/spec/template/spec/containers/0/readinessProbes", "value": {} }]'
`,
    });
    const { status, output } = validateCli('--kustomize', dir);
    expect(output).toMatch(
      /\[Deployment\/posts-service\]: "readinessProbes": Object literal may only specify known properties, and '"readinessProbes"' does not exist in type 'IContainer'/,
    );
    expect(status).toBe(1);
  }, 60_000);

  it('fails, naming each file, when kustomize cannot render or a compose file or Dockerfile is broken', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'overlay-'));
    writeFileSync(path.join(dir, 'kustomization.yaml'), 'resources:\n  - missing.yaml\n');
    const files = path.join(dir, 'files');
    mkdirSync(files);
    writeFileSync(
      path.join(files, 'compose.yml'),
      'services:\n  web:\n    image: nginx\n    helthcheck: {}\n',
    );
    writeFileSync(path.join(files, 'Dockerfile'), 'FROM node:24-alpine\nCMD node main.js\n');

    const { status, output } = validateCli(
      '--kustomize',
      dir,
      '--compose-fragment',
      path.join(files, 'compose.yml'),
      '--dockerfile',
      path.join(files, 'Dockerfile'),
    );
    expect(output).toMatch(/^FAIL .*overlay-\w+: rendered/m);
    expect(output).toMatch(/kustomize could not render it: .*missing\.yaml/);
    expect(output).toMatch(/compose\.yml \[\/services\/web\]: .*additional properties \('helthcheck'\)/);
    expect(output).toMatch(/Dockerfile .*non-root USER/);
    expect(output).toMatch(/Dockerfile .*exec-form CMD/);
    expect(status).toBe(1);
  }, 60_000);
});

describe('Kubernetes platform policy', () => {
  let prod: Manifest[];
  beforeAll(() => {
    prod = parseManifests(renderKustomization(overlay('prod')));
  });

  /** The prod overlay's rendered output with `change` applied to a copy. */
  function policyOf(change: (manifests: Manifest[]) => void): string[] {
    const copy = structuredClone(prod);
    change(copy);
    return checkKubernetesPolicy('prod', copy).map(formatProblem);
  }
  const find = (manifests: Manifest[], kind: string, name: string): any =>
    manifests.find((m) => m.kind === kind && m.metadata.name === name);

  it('holds for both overlays as committed', () => {
    expect(policyOf(() => {})).toEqual([]);
    expect(checkKubernetesPolicy('dev', parseManifests(renderKustomization(overlay('dev'))))).toEqual([]);
  });

  it("refuses an Ingress that exposes the gateway's /metrics or another service", () => {
    const problems = policyOf((m) => {
      const paths = find(m, 'Ingress', 'gateway').spec.rules[0].http.paths;
      paths.push({ ...paths[0], path: '/metrics' });
      paths.push({
        ...paths[0],
        path: '/internal',
        backend: { service: { name: 'users-service', port: { number: 3002 } } },
      });
    });
    expect(problems).toEqual([
      'prod [Ingress/gateway]: exposes /metrics; only /api/v1, /docs, /account, /.well-known/oauth-authorization-server are public',
      'prod [Ingress/gateway]: /internal routes to users-service, not the gateway',
      'prod [Ingress/gateway]: exposes /internal; only /api/v1, /docs, /account, /.well-known/oauth-authorization-server are public',
    ]);
  });

  it('refuses a committed Secret and a secret written as a plain value', () => {
    const problems = policyOf((m) => {
      m.push({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'community-secrets' },
        stringData: { a: 'b' },
      });
      const env = find(m, 'Deployment', 'gateway').spec.template.spec.containers[0].env;
      env[0] = { name: 'INTERNAL_TOKEN', value: 'not-so-secret-after-all' };
    });
    expect(problems).toEqual([
      'prod [Secret/community-secrets]: secrets are created per cluster, never committed',
      'prod [Deployment/gateway]: container gateway: INTERNAL_TOKEN must come from a Secret (secretKeyRef)',
    ]);
  });

  it('refuses a container that may escalate, writes its root filesystem or has no limits', () => {
    const problems = policyOf((m) => {
      const container = find(m, 'Deployment', 'users-service').spec.template.spec.containers[0];
      container.securityContext.allowPrivilegeEscalation = true;
      delete container.securityContext.readOnlyRootFilesystem;
      delete container.resources.limits;
      container.resources.requests.memory = '128 megabytes';
    });
    expect(problems).toEqual([
      'prod [Deployment/users-service]: container users-service: must set allowPrivilegeEscalation: false',
      'prod [Deployment/users-service]: container users-service: must set readOnlyRootFilesystem: true',
      'prod [Deployment/users-service]: container users-service: resources.requests.memory "128 megabytes" is not a quantity',
      'prod [Deployment/users-service]: container users-service: needs resources.limits.cpu',
      'prod [Deployment/users-service]: container users-service: needs resources.limits.memory',
    ]);
  });

  it('needs readiness on /readyz, liveness on /healthz and a grace period that covers the drain', () => {
    const problems = policyOf((m) => {
      const pod = find(m, 'Deployment', 'webhook-service').spec.template.spec;
      pod.containers[0].readinessProbe.httpGet.path = '/healthz';
      delete pod.containers[0].livenessProbe;
      pod.terminationGracePeriodSeconds = 20;
    });
    expect(problems).toEqual([
      'prod [Deployment/webhook-service]: container webhook-service: needs a readinessProbe on GET /readyz',
      'prod [Deployment/webhook-service]: container webhook-service: needs a livenessProbe on GET /healthz',
      'prod [Deployment/webhook-service]: container webhook-service: terminationGracePeriodSeconds 20 is shorter than its drain (25 s) plus 5 s to close',
    ]);
  });

  it('needs every data service to listen beyond loopback, where the gateway reaches it', () => {
    const problems = policyOf((m) => {
      const map = m.find((manifest) => manifest.kind === 'ConfigMap') as any;
      delete map.data.SERVICE_HOST;
    });
    expect(problems).toEqual(
      ['posts-service', 'users-service', 'webhook-service'].map(
        (name) =>
          `prod [Deployment/${name}]: SERVICE_HOST must be '0.0.0.0': on its default (loopback) the gateway cannot reach the pod`,
      ),
    );
  });

  it('needs an autoscaler, a disruption budget and migrations for every data service', () => {
    const problems = policyOf((m) => {
      m.splice(m.indexOf(find(m, 'HorizontalPodAutoscaler', 'posts-service')), 1);
      m.splice(m.indexOf(find(m, 'PodDisruptionBudget', 'posts-service')), 1);
      delete find(m, 'Deployment', 'posts-service').spec.template.spec.initContainers;
    });
    expect(problems).toEqual([
      'prod [Deployment/posts-service]: has no HorizontalPodAutoscaler',
      'prod [Deployment/posts-service]: no PodDisruptionBudget covers it',
      'prod [Deployment/posts-service]: uses a database but neither a migration Job nor an init container runs migrations',
    ]);
  });

  it('lets only the gateway reach the services, and each reach only its infrastructure', () => {
    const problems = policyOf((m) => {
      const posts = find(m, 'NetworkPolicy', 'posts-service').spec;
      posts.ingress[0].from.push({ namespaceSelector: {} });
      posts.egress.push({
        to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'redis' } } }],
        ports: [{ port: 6379 }],
      });
      find(m, 'NetworkPolicy', 'webhook-service').spec.egress.push({
        to: [{ ipBlock: { cidr: '0.0.0.0/0' } }],
      });
      m.splice(m.indexOf(find(m, 'NetworkPolicy', 'default-deny')), 1);
    });
    expect(problems).toEqual([
      'prod: needs a default-deny NetworkPolicy (all pods, Ingress and Egress, no rules)',
      'prod [NetworkPolicy/posts-service]: lets {"namespaceSelector":{}} reach posts-service; only the gateway (and monitoring) may',
      'prod [NetworkPolicy/posts-service]: posts-service may not connect to port 6379',
      'prod [NetworkPolicy/webhook-service]: an egress rule of webhook-service allows every port',
    ]);
  });
});
