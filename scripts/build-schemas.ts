// `npm run build:schemas`: rewrites src/http/compiled/schemas.cjs, the routes' validators and
// serializers compiled ahead of the start (src/http/precompiled-schemas.ts says why). Run it after
// changing a route's schema; the test suite fails until you do. `npm start` never needs it: the
// generated file is committed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { compiledPath } from '../src/http/precompiled-schemas.js';
import { compiledSchemasText } from './schema-codegen.js';

const text = await compiledSchemasText();
mkdirSync(dirname(compiledPath), { recursive: true });
writeFileSync(compiledPath, text);
console.log(`wrote src/http/compiled/schemas.cjs (${text.length} bytes)`);
