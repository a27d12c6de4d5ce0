// The client's generated files (OpenAPI document, types, operation table) match what the service
// serves now: a route or schema change without `npm run generate:client` fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientDir, generateClientFiles } from '../../scripts/client-codegen.js';

test('packages/client generated files are up to date with the OpenAPI document (else run npm run generate:client)', async () => {
  const files = await generateClientFiles();
  assert.deepEqual([...files.keys()].sort(), ['openapi.json', 'src/generated/operations.ts', 'src/generated/schema.ts']);
  for (const [rel, expected] of files) {
    const actual = readFileSync(join(clientDir, rel), 'utf8');
    assert.ok(actual === expected, `packages/client/${rel} is stale: run npm run generate:client`);
  }
});

test('the generated operation table has one entry per operation of the document, keyed by operationId', async () => {
  const files = await generateClientFiles();
  const doc = JSON.parse(files.get('openapi.json')!) as { paths: Record<string, Record<string, { operationId: string }>> };
  const { operationTable } = await import('@rep-coach/client');
  const fromDoc = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([m, op]) => [op.operationId, `${m.toUpperCase()} ${path}`]));
  const fromTable = Object.entries(operationTable).map(([id, op]) => [id, `${op.method} ${op.path}`]);
  assert.deepEqual(fromTable.sort(), fromDoc.sort());
});
