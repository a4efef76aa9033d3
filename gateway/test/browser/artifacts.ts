import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** Screenshots for a person to look at; git ignores the folder. */
const ARTIFACTS = path.join(__dirname, 'artifacts');

/** Where a screenshot named `name` goes (the folder is made on first use). */
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}
