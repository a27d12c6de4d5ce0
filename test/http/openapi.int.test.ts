// The OpenAPI document served at /openapi.json is good enough to generate a client from: clean under
// @redocly/cli's recommended rules, an operationId and a summary on every operation, servers and a
// licence, and every SPEC error code listed (with its status) on the operations that return it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startHarness } from '../support/harness.js';
import { repoRoot } from '../support/processes.js';
import { removeDir } from '../support/remove-dir.js';

const run = promisify(execFile);

type Doc = {
  servers?: { url: string }[];
  info: { license?: { name: string } };
  paths: Record<string, Record<string, { operationId?: string; summary?: string; responses: Record<string, { content?: { 'application/json': { schema: any } } }> }>>;
};

async function servedDocument(t: import('node:test').TestContext): Promise<Doc> {
  const h = await startHarness(t);
  const res = await h.request('GET', '/openapi.json');
  assert.equal(res.status, 200);
  return res.body as Doc;
}

const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

test('the served OpenAPI document passes @redocly/cli lint with the recommended rules: no error, no warning', async (t) => {
  const doc = await servedDocument(t);
  const dir = mkdtempSync(join(tmpdir(), 'rc-lint-'));
  t.after(() => removeDir(dir));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const bin = join(repoRoot, 'node_modules/.bin/redocly');
  // Telemetry and update checks off: the lint runs offline.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const { stdout } = await run(bin, ['lint', file, '--extends', 'recommended', '--format', 'json'], { env, cwd: dir, maxBuffer: 16 << 20 }).catch((e) => e);
  const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
  const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
  assert.deepEqual(problems, []);
  assert.equal(report.totals.errors, 0);
  assert.equal(report.totals.warnings, 0);
});

test('every operation has a unique camelCase operationId (the SDK method name) and a summary; servers and licence are set', async (t) => {
  const doc = await servedDocument(t);
  const ops = operationsOf(doc);
  assert.ok(ops.length >= 9, `expected SPEC's 9 operations, got ${ops.length}`);
  const ids = ops.map(({ op }) => op.operationId);
  for (const { path, method, op } of ops) {
    assert.match(op.operationId ?? '', /^[a-z][A-Za-z0-9]*$/, `${method} ${path} operationId`);
    assert.ok(op.summary && op.summary.length > 3, `${method} ${path} summary`);
  }
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  assert.ok(doc.servers?.length && doc.servers.every((s) => /^https?:\/\//.test(s.url)));
  assert.ok(doc.info.license?.name);
});

// SPEC's Endpoints and Errors parts: which operation answers which code, with which status.
const specErrors: Record<string, Record<string, number>> = {
  'get /v1/identity': { authentication_error: 401 },
  'get /v1/exercises': { authentication_error: 401, catalog_error: 500 },
  'post /v1/uploads': { authentication_error: 401, spots_per_window_exceeded: 429, unclaimed_bytes_exceeded: 429, store_unavailable: 503, storage_stat_unavailable: 503 },
  'get /v1/uploads/{handle}': { authentication_error: 401, upload_not_found: 404 },
  'post /v1/jobs': {
    authentication_error: 401, malformed_request: 400, unknown_exercise: 404, upload_not_found: 404, upload_spot_expired: 410, upload_incomplete: 409,
    upload_already_claimed: 409, usage_limit_exceeded: 429, internal_error: 500, store_unavailable: 503, storage_stat_unavailable: 503,
  },
  'get /v1/jobs/{job_id}': { authentication_error: 401, job_not_found: 404 },
  'get /v1/jobs': { authentication_error: 401 },
  'post /v1/jobs/{job_id}/cancel': { authentication_error: 401, job_not_found: 404, job_already_started: 409, job_already_finished: 409 },
};

test('every SPEC error code is listed, under its status, on each operation that returns it', async (t) => {
  const doc = await servedDocument(t);
  for (const [op, codes] of Object.entries(specErrors)) {
    const [method, path] = op.split(' ') as [string, string];
    const responses = doc.paths[path]?.[method]?.responses;
    assert.ok(responses, `${op} is in the document`);
    for (const [code, status] of Object.entries(codes)) {
      const schema = responses[String(status)]?.content?.['application/json'].schema;
      const listed: string[] = schema?.properties?.error?.properties?.code?.enum ?? [];
      assert.ok(listed.includes(code), `${op} lists ${code} under ${status} (has ${JSON.stringify(listed)})`);
    }
  }
});
