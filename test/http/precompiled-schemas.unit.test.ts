// The routes' validators and serializers come from the code `npm run build:schemas` generated
// (src/http/precompiled-schemas.ts): the checked-in file matches the schemas as they are now, the
// app finds every route part in it, and a schema it lacks is still compiled, not left unchecked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { withScratchApp } from '../../src/http/openapi.js';
import { compiledAtStart, compiledPath, precompiledCompilers } from '../../src/http/precompiled-schemas.js';
import { compiledSchemasText } from '../../scripts/schema-codegen.js';

test('src/http/compiled/schemas.cjs is up to date with the route schemas (else run npm run build:schemas)', async () => {
  const expected = await compiledSchemasText();
  assert.ok(readFileSync(compiledPath, 'utf8') === expected, 'src/http/compiled/schemas.cjs is stale: run npm run build:schemas');
});

test('the app compiles no route schema at start: every validator and serializer is in the generated file', async () => {
  const before = compiledAtStart.length;
  await withScratchApp({}, async (app) => {
    // A serializer from the file at work.
    assert.deepEqual((await app.inject({ method: 'GET', url: '/livez' })).json(), { status: 'ok' });
  });
  assert.deepEqual(compiledAtStart.slice(before), []);
});

test('a schema the generated file lacks is compiled at start as fastify would, and named', async () => {
  const app = Fastify({ schemaController: { compilersFactory: precompiledCompilers() } });
  app.post('/novel', {
    schema: {
      body: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 2 } } },
      response: { 200: { type: 'object', properties: { twice: { type: 'integer' } } } },
    },
  }, async (request) => ({ twice: (request.body as { n: number }).n * 2, dropped: 'not in the schema' }));
  await app.ready();
  assert.deepEqual(compiledAtStart.filter((s) => s.includes('/novel')), ['validator POST /novel body', 'serializer POST /novel 200']);
  assert.equal((await app.inject({ method: 'POST', url: '/novel', payload: { n: 1 } })).statusCode, 400);
  assert.equal((await app.inject({ method: 'POST', url: '/novel', payload: { n: 3 } })).body, '{"twice":6}');
  await app.close();
});
