import { describeManifest, type Manifest } from './manifests';
import { problem, type Problem } from './problems';

/**
 * The Kubernetes API the manifests are checked against: kubernetes-models ships one model per
 * apiVersion/kind, generated from that release's OpenAPI schema, with a compiled JSON-schema
 * validator (types, required fields, enums, formats such as quantities and CIDRs).
 */
export const KUBERNETES_VERSION = '1.36'; // kubernetes-models 5.1.0, pinned in package.json

/** The module of an apiVersion/kind in kubernetes-models: `apps/v1` + `Deployment` → apps/v1/Deployment. */
export const modelModule = (m: Manifest): string => `kubernetes-models/${m.apiVersion}/${m.kind}`;

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9]*$/;
const API_VERSION = /^(?:[a-z0-9.-]+\/)?v\d+(?:(?:alpha|beta)\d+)?$/;

interface ModelClass {
  new (data: unknown): { validate(): void };
}

/** The model class of a manifest's apiVersion/kind, or undefined when Kubernetes has no such API. */
export async function loadModel(m: Manifest): Promise<ModelClass | undefined> {
  if (!API_VERSION.test(String(m.apiVersion)) || !IDENTIFIER.test(String(m.kind))) return undefined;
  try {
    const module = (await import(modelModule(m))) as Record<string, ModelClass>;
    return module[m.kind];
  } catch {
    return undefined;
  }
}

/**
 * kubernetes-models also keeps models of API versions Kubernetes has since removed (policy/v1beta1,
 * extensions/v1beta1, …). Only GA versions are accepted: beta APIs are off by default since
 * Kubernetes 1.24 and every removed one was a beta.
 */
export const PRERELEASE = /v\d+(?:alpha|beta)\d+$/;

/** Validates every manifest against the schema of its kind. */
export async function checkSchemas(source: string, manifests: Manifest[]): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const manifest of manifests) {
    const where = describeManifest(manifest);
    if (PRERELEASE.test(String(manifest.apiVersion))) {
      problems.push(
        problem(
          source,
          `${manifest.apiVersion} ${manifest.kind} is not a GA API of Kubernetes ${KUBERNETES_VERSION}`,
          where,
        ),
      );
      continue;
    }
    const Model = await loadModel(manifest);
    if (!Model) {
      problems.push(
        problem(
          source,
          `${manifest.apiVersion} ${manifest.kind} is not an API of Kubernetes ${KUBERNETES_VERSION}`,
          where,
        ),
      );
      continue;
    }
    try {
      new Model(manifest).validate();
    } catch (err) {
      const errors = (err as { errors?: { instancePath: string; message?: string }[] }).errors;
      for (const e of errors ?? [{ instancePath: '', message: (err as Error).message }]) {
        problems.push(problem(source, `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`, where));
      }
    }
  }
  return problems;
}
