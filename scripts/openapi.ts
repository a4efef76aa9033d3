// Writes the OpenAPI document, generated from the contract schemas, to a file (or stdout):
//   npm run openapi -- openapi.json
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '@community/openapi';

const json = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
const [file] = process.argv.slice(2);
if (file) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, json);
} else process.stdout.write(json);
