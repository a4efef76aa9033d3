import { parseAllDocuments } from 'yaml';

/** A Kubernetes object as rendered: apiVersion, kind, metadata and whatever its kind defines. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** `Kind/name`, how problems name an object. */
export const describeManifest = (m: Manifest): string => `${m.kind}/${m.metadata?.name ?? '(unnamed)'}`;

/** The documents of a multi-document YAML stream; a YAML error throws. */
export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text, { uniqueKeys: true }).flatMap((doc) => {
    if (doc.errors.length) throw new Error(`not valid YAML: ${doc.errors[0]!.message}`);
    const value = doc.toJS() as Manifest | null;
    return value ? [value] : [];
  });
}
