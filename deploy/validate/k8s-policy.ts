import { describeManifest, type Manifest } from './manifests';
import { problem, type Problem } from './problems';

/* What deploy/k8s promises beyond the schemas, checked on the rendered output of each overlay. */

type Labels = Record<string, string>;
interface Container {
  name: string;
  image?: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: unknown } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  resources?: { requests?: Labels; limits?: Labels };
  readinessProbe?: { httpGet?: { path?: string } };
  livenessProbe?: { httpGet?: { path?: string } };
  lifecycle?: { preStop?: { sleep?: { seconds?: number } } };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: { runAsNonRoot?: boolean };
  terminationGracePeriodSeconds?: number;
}
interface Peer {
  podSelector?: { matchLabels?: Labels };
  namespaceSelector?: { matchLabels?: Labels };
  ipBlock?: unknown;
}
interface PolicyRule {
  from?: Peer[];
  to?: Peer[];
  ports?: { port?: number | string }[];
}

const NAME = 'app.kubernetes.io/name';
const PUBLIC_PATHS = new Set(['/api/v1', '/docs', '/account', '/.well-known/oauth-authorization-server']);
const MONITORING = 'monitoring';
/** Where each workload may connect, by port (DNS is allowed to every pod by its own policy). */
const EGRESS_PORTS: Record<string, number[]> = {
  gateway: [3001, 3002, 3003, 6379, 5672],
  'posts-service': [5432, 5672],
  'users-service': [5432, 5672],
  'webhook-service': [5432, 5672, 443, 80],
};
const SECRET_ENV = /^(INTERNAL_TOKEN|SECRETS_KEY|DATABASE_URL|AMQP_URL|REDIS_URL|.*PASSWORD.*)$/;
/** apimachinery's resource.Quantity grammar; the OpenAPI schema types quantities as plain strings. */
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|[numkMGTPE]|[KMGTPE]i)?$/;

type Fail = (m: Manifest | undefined, message: string) => void;
type Of<T> = Manifest & T;
type Deployment = Of<{
  spec: { replicas?: number; template: { metadata: { labels: Labels }; spec: PodSpec } };
}>;
type ConfigMap = Of<{ data?: Labels }>;
type Hpa = Of<{ spec: { scaleTargetRef: { kind: string; name: string } } }>;
type Selecting = Of<{ spec: { selector?: Labels } }>;
type Budget = Of<{ spec: { selector?: { matchLabels?: Labels } } }>;
type NetworkPolicy = Of<{
  spec: {
    podSelector: { matchLabels?: Labels };
    policyTypes?: string[];
    ingress?: PolicyRule[];
    egress?: PolicyRule[];
  };
}>;
type Ingress = Of<{
  spec: {
    defaultBackend?: unknown;
    rules?: { http?: { paths: { path?: string; backend: { service?: { name: string } } }[] } }[];
  };
}>;

const ofKind = <T>(manifests: Manifest[], kind: string) =>
  manifests.filter((m) => m.kind === kind) as Of<T>[];
const selects = (selector: Labels | undefined, labels: Labels) =>
  !!selector &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels[k] === v);

export function checkKubernetesPolicy(source: string, manifests: Manifest[]): Problem[] {
  const problems: Problem[] = [];
  const fail: Fail = (m, message) =>
    problems.push(problem(source, message, m ? describeManifest(m) : undefined));
  checkSecrets(manifests, fail);
  for (const deployment of ofKind<Deployment>(manifests, 'Deployment'))
    checkDeployment(deployment, manifests, fail);
  checkIngress(ofKind<Ingress>(manifests, 'Ingress'), fail);
  checkNetworkPolicies(ofKind<NetworkPolicy>(manifests, 'NetworkPolicy'), fail);
  return problems;
}

/** No secret values in the repository: no Secret objects, no secrets among the ConfigMap's settings. */
function checkSecrets(manifests: Manifest[], fail: Fail): void {
  for (const secret of ofKind(manifests, 'Secret'))
    fail(secret, 'secrets are created per cluster, never committed');
  for (const map of ofKind<ConfigMap>(manifests, 'ConfigMap')) {
    for (const key of Object.keys(map.data ?? {})) {
      if (SECRET_ENV.test(key)) fail(map, `${key} is a secret: reference it from a Secret instead`);
    }
  }
}

/** A workload is scaled, reachable, budgeted, fenced, hardened, probed and drained as promised. */
function checkDeployment(deployment: Deployment, manifests: Manifest[], fail: Fail): void {
  const { spec } = deployment;
  const pod = spec.template.spec;
  const labels = spec.template.metadata.labels;
  const hpas = ofKind<Hpa>(manifests, 'HorizontalPodAutoscaler');
  const services = ofKind<Selecting>(manifests, 'Service');
  const pdbs = ofKind<Budget>(manifests, 'PodDisruptionBudget');
  const policies = ofKind<NetworkPolicy>(manifests, 'NetworkPolicy');
  const scaledBy = (h: Hpa) =>
    h.spec.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === deployment.metadata.name;

  if (!hpas.some(scaledBy)) fail(deployment, 'has no HorizontalPodAutoscaler');
  else if (spec.replicas !== undefined) fail(deployment, 'sets replicas, which its autoscaler owns');
  if (!services.some((s) => selects(s.spec.selector, labels)))
    fail(deployment, 'no Service selects its pods');
  if (!pdbs.some((p) => selects(p.spec.selector?.matchLabels, labels))) {
    fail(deployment, 'no PodDisruptionBudget covers it');
  }
  if (!policies.some((p) => selects(p.spec.podSelector.matchLabels, labels))) {
    fail(deployment, 'no NetworkPolicy of its own');
  }

  const env = new Map<string, string>();
  for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
    checkContainer(container, pod, (message) => fail(deployment, `container ${container.name}: ${message}`));
    for (const { configMapRef } of container.envFrom ?? []) {
      const map = ofKind<ConfigMap>(manifests, 'ConfigMap').find(
        (c) => c.metadata.name === configMapRef?.name,
      );
      for (const [key, value] of Object.entries(map?.data ?? {})) env.set(key, value);
    }
  }
  for (const container of pod.containers) {
    const failHere = (message: string) => fail(deployment, `container ${container.name}: ${message}`);
    if (container.readinessProbe?.httpGet?.path !== '/readyz')
      failHere('needs a readinessProbe on GET /readyz');
    if (container.livenessProbe?.httpGet?.path !== '/healthz')
      failHere('needs a livenessProbe on GET /healthz');
    const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
    const delay = Number(env.get('SHUTDOWN_DELAY_MS') ?? 5_000) / 1000;
    const drain = preStop + delay + Number(env.get('SHUTDOWN_GRACE_MS') ?? 10_000) / 1000;
    const grace = pod.terminationGracePeriodSeconds ?? 30;
    if (grace < drain + 5) {
      failHere(
        `terminationGracePeriodSeconds ${grace} is shorter than its drain (${drain} s) plus 5 s to close`,
      );
    }
  }
  const usesDatabase = pod.containers.some((c) => c.env?.some((e) => e.name === 'DATABASE_URL'));
  if (usesDatabase && env.get('SERVICE_HOST') !== '0.0.0.0') {
    fail(
      deployment,
      "SERVICE_HOST must be '0.0.0.0': on its default (loopback) the gateway cannot reach the pod",
    );
  }
  if (usesDatabase && !ofKind(manifests, 'Job').length && !(pod.initContainers ?? []).length) {
    fail(deployment, 'uses a database but neither a migration Job nor an init container runs migrations');
  }
}

/** One Ingress, to the gateway, for the public paths only. */
function checkIngress(ingresses: Ingress[], fail: Fail): void {
  if (ingresses.length !== 1)
    fail(undefined, `expected exactly one Ingress (the gateway's), found ${ingresses.length}`);
  for (const ingress of ingresses) {
    if (ingress.spec.defaultBackend)
      fail(ingress, 'must not have a defaultBackend: it would expose every path');
    for (const rule of ingress.spec.rules ?? []) {
      for (const { path, backend } of rule.http?.paths ?? []) {
        const target = backend.service?.name;
        if (target !== 'gateway') fail(ingress, `${path} routes to ${target}, not the gateway`);
        if (!PUBLIC_PATHS.has(path ?? '')) {
          fail(ingress, `exposes ${path}; only ${[...PUBLIC_PATHS].join(', ')} are public`);
        }
      }
    }
  }
}

/** Default deny; only the gateway (and monitoring) reach the services; each reaches its own ports. */
function checkNetworkPolicies(policies: NetworkPolicy[], fail: Fail): void {
  const denyAll = (p: NetworkPolicy) =>
    !Object.keys(p.spec.podSelector.matchLabels ?? {}).length &&
    !p.spec.ingress &&
    !p.spec.egress &&
    ['Ingress', 'Egress'].every((type) => p.spec.policyTypes?.includes(type));
  if (!policies.some(denyAll))
    fail(undefined, 'needs a default-deny NetworkPolicy (all pods, Ingress and Egress, no rules)');

  for (const policy of policies) {
    const app = policy.spec.podSelector.matchLabels?.[NAME];
    if (!app || !(app in EGRESS_PORTS)) continue;
    for (const rule of policy.spec.ingress ?? []) {
      for (const peer of rule.from ?? [{}]) {
        const namespace = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
        const fromGateway = peer.podSelector?.matchLabels?.[NAME] === 'gateway' && !peer.namespaceSelector;
        const fromMonitoring = namespace === MONITORING && !peer.podSelector;
        // The ingress controller's namespace, whatever it is called.
        const fromIngress = app === 'gateway' && !!namespace && !peer.podSelector;
        if (!fromGateway && !fromMonitoring && !fromIngress) {
          fail(policy, `lets ${JSON.stringify(peer)} reach ${app}; only the gateway (and monitoring) may`);
        }
      }
    }
    for (const rule of policy.spec.egress ?? []) {
      const ports = (rule.ports ?? []).map((p) => Number(p.port));
      if (!ports.length) fail(policy, `an egress rule of ${app} allows every port`);
      for (const port of ports.filter((p) => !EGRESS_PORTS[app]!.includes(p))) {
        fail(policy, `${app} may not connect to port ${port}`);
      }
    }
  }
}

function checkContainer(container: Container, pod: PodSpec, fail: (message: string) => void): void {
  const security = container.securityContext ?? {};
  if (!(security.runAsNonRoot ?? pod.securityContext?.runAsNonRoot))
    fail('must run as non-root (runAsNonRoot)');
  if (security.allowPrivilegeEscalation !== false) fail('must set allowPrivilegeEscalation: false');
  if (security.readOnlyRootFilesystem !== true) fail('must set readOnlyRootFilesystem: true');
  if (!security.capabilities?.drop?.includes('ALL')) fail('must drop ALL capabilities');
  for (const kind of ['requests', 'limits'] as const) {
    for (const resource of ['cpu', 'memory']) {
      const quantity = container.resources?.[kind]?.[resource];
      if (!quantity) fail(`needs resources.${kind}.${resource}`);
      else if (!QUANTITY.test(String(quantity)))
        fail(`resources.${kind}.${resource} "${quantity}" is not a quantity`);
    }
  }
  if (
    !container.image ||
    /:latest$/.test(container.image) ||
    !/[:@]/.test(container.image.split('/').pop()!)
  ) {
    fail(`image ${container.image} must name a version (a tag other than latest, or a digest)`);
  }
  for (const variable of container.env ?? []) {
    if (SECRET_ENV.test(variable.name) && !variable.valueFrom?.secretKeyRef) {
      fail(`${variable.name} must come from a Secret (secretKeyRef)`);
    }
  }
}
