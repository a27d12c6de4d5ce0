// `npm start`, `npm run worker`, the engine processes and `npm run admin`, `analyze` and `cli` load
// the sources with Node's own type stripping (src/runtime/ts-loader.mjs), which takes erasable
// syntax only: one enum, namespace or parameter property in a file they load would stop the service
// at start. tsc does not catch it (the tests and `npm run typecheck` accept that syntax), so every
// file under src/ and the client package's src/ is stripped here as Node would strip it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as nodeModule from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/processes.js';

// Newer than the project's @types/node; absent on a Node that cannot strip (the loader uses tsx there).
const strip = (nodeModule as { stripTypeScriptTypes?: (code: string, o: { mode: 'strip' }) => string }).stripTypeScriptTypes;

// `npm run -s cli` loads the client package from its TypeScript sources too (`--conditions=source`).
const roots = ['src', 'packages/client/src'];

test('every TypeScript file under src/ and packages/client/src/ is erasable syntax, as Node strips it at `npm start` and `npm run cli`', { skip: !strip && 'this Node cannot strip types' }, () => {
  // What tsconfig.json excludes is not for Node (the AssemblyScript source of the decoder's wasm).
  const excluded = (JSON.parse(readFileSync(join(repoRoot, 'tsconfig.json'), 'utf8')) as { exclude?: string[] }).exclude ?? [];
  const files = roots.flatMap((root) => (readdirSync(join(repoRoot, root), { recursive: true }) as string[])
    .map((f) => `${root}/${f}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !excluded.some((x) => f.startsWith(`${x}/`))));
  assert.ok(files.filter((f) => f.startsWith('src/')).length > 50 && files.some((f) => f.startsWith('packages/')), 'the sources were found');
  const refused: string[] = [];
  for (const f of files) {
    try {
      strip!(readFileSync(join(repoRoot, f), 'utf8'), { mode: 'strip' });
    } catch (e) {
      refused.push(`${f}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  assert.deepEqual(refused, []);
});
