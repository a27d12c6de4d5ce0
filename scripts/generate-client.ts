// `npm run generate:client`: rewrites packages/client's generated files from the service's OpenAPI
// document. Run it after changing a route or a schema; the test suite fails until you do.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { clientDir, generateClientFiles } from './client-codegen.js';

for (const [rel, text] of await generateClientFiles()) {
  const path = join(clientDir, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`wrote packages/client/${rel}`);
}
