// Every answer the API gives is SPEC's or in the OpenAPI document it serves (issue 21, item 6): a
// few hundred requests over every operation, valid and not (no key, long ids, stray Content-Types,
// bodies where none is read, bodies that are not JSON, bad Idempotency-Keys), each answer checked
// against the served document like a validating proxy would: the status is declared on the
// operation, the body matches that status's schema, and the headers every answer carries are there.
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startHarness, type Harness } from '../support/harness.js';

type Operation = { operationId: string; responses: Record<string, { content?: Record<string, { schema: object }> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, object> } };

function validatorFor(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components ?? {} });
  const routes = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]*')}$`),
      path,
      op,
    })),
  );
  return (method: string, path: string, status: number, body: string, headers: Headers): string[] => {
    const route = routes.find((r) => r.method === method && r.pattern.test(path));
    if (!route) return [`${method} ${path}: no operation in the document`];
    const problems: string[] = [];
    const declared = route.op.responses[String(status)] ?? route.op.responses.default;
    if (!declared) return [`${method} ${route.path} answered ${status}, not declared (${Object.keys(route.op.responses).join(', ')}): ${body.slice(0, 120)}`];
    const schema = declared.content?.['application/json']?.schema;
    if (schema) {
      const check = ajv.compile({ ...schema, $id: undefined });
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return [`${method} ${route.path} ${status}: body is not JSON: ${body.slice(0, 120)}`];
      }
      if (!check(parsed)) problems.push(`${method} ${route.path} ${status}: ${ajv.errorsText(check.errors)} in ${body.slice(0, 200)}`);
    } else if (status !== 204 && body !== '' && !headers.get('content-type')?.includes('json')) {
      problems.push(`${method} ${route.path} ${status}: undocumented body`);
    }
    if (headers.get('x-content-type-options') !== 'nosniff') problems.push(`${method} ${route.path} ${status}: no X-Content-Type-Options: nosniff`);
    if (path.startsWith('/v1') && headers.get('cache-control') !== 'no-store') problems.push(`${method} ${route.path} ${status}: no Cache-Control: no-store`);
    return problems;
  };
}

async function send(h: Harness, method: string, path: string, headers: Record<string, string>, body?: string | Buffer) {
  const res = await fetch(h.base + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : new Uint8Array(body) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

test('every answer, valid request or not, is declared in the served OpenAPI document and matches its schema', async (t) => {
  const h = await startHarness(t, { env: { BODY_LIMIT_BYTES: '2048' } });
  const doc = (await h.request('GET', '/openapi.json')).body as Doc;
  const validate = validatorFor(doc);
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey);
  const job = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
  assert.equal(job.status, 201);
  const endpoint = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url: 'https://example.com/hook', events: ['job.completed'] } });

  const long = 'x'.repeat(150);
  // 17,000 characters: past Node's 16 KiB header limit, answered 431 before any route.
  const ids = [job.body.job_id, handle, endpoint.body?.id ?? 'we_none', long, 'y'.repeat(17_000), '00000000-0000-4000-8000-000000000000', 'caf%C3%A9', '%zz', 'a.b', ''];
  const auths: Record<string, string>[] = [{}, { authorization: 'Bearer rk_nope' }, { authorization: `Bearer ${apiKey}` }];
  const bodies: { headers: Record<string, string>; body?: string | Buffer }[] = [
    { headers: {} },
    { headers: { 'content-type': '' }, body: '' },
    { headers: { 'content-type': 'text/plain' }, body: 'hello' },
    { headers: { 'content-type': ';;;' }, body: '{"a":1}' },
    { headers: { 'content-type': 'application/json' }, body: 'not json' },
    { headers: { 'content-type': 'application/json' }, body: '[1,2]' },
    { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: handle, exercise_id: 'nope' }) },
    { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1/x', events: ['job.completed'] }) },
    { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(4096, 7) },
    { headers: { 'content-type': 'application/json', 'idempotency-key': '' }, body: '{}' },
    { headers: { 'idempotency-key': 'k'.repeat(300) } },
  ];

  const problems: string[] = [];
  let answers = 0;
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item).map((m) => m.toUpperCase())) {
      const paths = template.includes('{') ? ids.map((id) => template.replace(/\{[^}]+\}/, id)) : [template];
      for (const path of paths) {
        for (const auth of auths) {
          const variants = method === 'GET' || method === 'DELETE' ? bodies.slice(0, 3) : bodies;
          for (const v of variants) {
            // Cancel is run against the real job only once (it would leave queued after that).
            const res = await send(h, method, path, { ...auth, ...v.headers }, method === 'GET' ? undefined : v.body);
            answers++;
            // The id in the path may not match the template once %-decoded ('' or '%zz'): check the template.
            problems.push(...validate(method, path.includes('%zz') || path.endsWith('/') ? template.replace(/\{[^}]+\}/, 'x') : path, res.status, res.text, res.headers));
          }
        }
      }
    }
  }
  assert.deepEqual(problems.slice(0, 20), []);
  assert.ok(answers > 300, `only ${answers} answers checked`);
  t.diagnostic(`${answers} answers checked against the document`);
});

test('an id longer than 100 characters gets SPEC\'s 401 without a key and 404 job_not_found / upload_not_found with one', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const long = 'j'.repeat(101 + 400);
  for (const path of [`/v1/jobs/${long}`, `/v1/uploads/${long}`, `/v1/jobs/${long}/cancel`]) {
    const method = path.endsWith('cancel') ? 'POST' : 'GET';
    const anon = await h.request(method, path);
    assert.equal(anon.status, 401, path);
    assert.equal(anon.body.error.code, 'authentication_error');
    const res = await h.request(method, path, { key: apiKey });
    assert.equal(res.status, 404, path);
    assert.equal(res.body.error.code, path.startsWith('/v1/uploads') ? 'upload_not_found' : 'job_not_found');
  }
});

test('POSTs whose body SPEC ignores (mint, cancel) never answer 413 or 415, whatever Content-Type or body comes', async (t) => {
  const h = await startHarness(t, { env: { BODY_LIMIT_BYTES: '1024' } });
  const { apiKey } = await h.createKey();
  const auth = { authorization: `Bearer ${apiKey}` };
  const types: Record<string, string>[] = [{ 'content-type': '' }, { 'content-type': ';;' }, { 'content-type': 'text/plain' }, { 'content-type': 'application/json' }, {}];
  for (const headers of types) {
    for (const body of [undefined, '', 'garbage', 'x'.repeat(50_000)]) {
      const mint = await send(h, 'POST', '/v1/uploads', { ...auth, ...headers }, body);
      assert.equal(mint.status, 201, `${JSON.stringify(headers)} ${body?.length}: ${mint.text}`);
      const cancel = await send(h, 'POST', '/v1/jobs/00000000-0000-4000-8000-000000000000/cancel', { ...auth, ...headers }, body);
      assert.equal(cancel.status, 404, `${JSON.stringify(headers)} ${body?.length}: ${cancel.text}`);
      assert.equal(JSON.parse(cancel.text).error.code, 'job_not_found');
    }
  }
  assert.equal((await h.request('GET', '/livez')).status, 200);
});

test('POST /v1/jobs: a body that is not JSON is 400 malformed_request whatever its Content-Type', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  for (const ct of [undefined, '', ';;', 'text/plain', 'application/json', 'application/x-www-form-urlencoded']) {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, ...(ct === undefined ? {} : { 'content-type': ct }) };
    const res = await send(h, 'POST', '/v1/jobs', headers, 'upload_handle=x&exercise_id=squat');
    assert.equal(res.status, 400, `${ct}: ${res.text}`);
    assert.equal(JSON.parse(res.text).error.code, 'malformed_request');
  }
});

test('X-Content-Type-Options: nosniff on every answer; Cache-Control: no-store on every /v1 answer, 404s included', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  for (const [path, key] of [['/livez', undefined], ['/nowhere', undefined], ['/v1/nowhere', undefined], ['/v1/nowhere', apiKey], ['/v1/jobs/none', apiKey], ['/v1/identity', undefined], ['/v1/identity', apiKey]] as const) {
    const res = await h.request('GET', path, { key });
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    if (path.startsWith('/v1')) assert.equal(res.headers.get('cache-control'), 'no-store', `${path} ${res.status}`);
  }
});

test('answers Node gives before any route (417 for an unknown Expect, 431 for oversized headers) are in the document on every operation', async (t) => {
  const h = await startHarness(t);
  const doc = (await h.request('GET', '/openapi.json')).body as Doc;
  const validate = validatorFor(doc);
  const { apiKey } = await h.createKey();
  // fetch refuses an Expect header: node:http sends it as given.
  const raw = (method: string, path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; text: string; headers: Headers }>((resolve, reject) => {
      const req = httpRequest(h.base + path, { method, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => {
          const hs = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') hs.set(k, v);
          resolve({ status: res.statusCode ?? 0, text, headers: hs });
        });
      });
      req.on('error', reject).end();
    });
  const problems: string[] = [];
  const seen = new Set<number>();
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item).map((m) => m.toUpperCase())) {
      const path = template.replace(/\{[^}]+\}/, 'some-id');
      for (const [headers, want] of [
        [{ authorization: `Bearer ${apiKey}`, expect: 'something-else' }, 417],
        [{ authorization: `Bearer ${apiKey}`, 'x-padding': 'p'.repeat(17_000) }, 431],
      ] as const) {
        const res = await raw(method, path, headers);
        assert.equal(res.status, want, `${method} ${path}: ${res.text}`);
        seen.add(res.status);
        problems.push(...validate(method, path, res.status, res.text, res.headers));
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.deepEqual([...seen].sort(), [417, 431]);
});
