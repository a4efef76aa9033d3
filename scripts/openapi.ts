// Writes the OpenAPI document, generated from the contract schemas, to a file (or stdout):
//   npm run openapi -- openapi.json
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '@community/openapi';

const json = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
const [file] = process.argv.slice(2);
if (file) writeFileSync(file, json);
else process.stdout.write(json);
