// Issue rx, the outside review's edges that need no server: `admin help` and `cli jobs --help`
// answer like their siblings; env knobs that used to be taken silently (or to break later) stop
// the boot with one line naming the variable, and the values they took before still pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main as admin } from '../../src/cli/admin.js';
import { main as cli } from '../../src/cli/client.js';
import { loadConfig } from '../../src/config.js';
import { memoryStream } from './run.js';

const noConfig = () => {
  throw new Error('help must not open the data');
};

test('admin help prints the usage, exit 0 (as --help, and as the partner CLI\'s help)', async () => {
  const out = memoryStream();
  const err = memoryStream();
  assert.equal(await admin(['help'], { out: out.stream, err: err.stream }, noConfig), 0);
  assert.ok(out.text().startsWith('usage: npm run -s admin --'), out.text());
  assert.equal(err.text(), '');
});

test('cli jobs --help and jobs -h print the usage, exit 0 (as admin jobs --help), before any request', async () => {
  for (const flag of ['--help', '-h']) {
    const out = memoryStream();
    const err = memoryStream();
    const code = await cli(['jobs', flag], { out: out.stream, err: err.stream, env: { REP_COACH_API_URL: 'http://127.0.0.1:9' } });
    assert.equal(code, 0, err.text());
    assert.ok(out.text().startsWith('usage: npm run -s cli --'), out.text());
    assert.equal(err.text(), '');
  }
});

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
};

test('env knobs: a value that was silently ignored, or that broke later, stops the boot naming the variable', () => {
  const cases: [Record<string, string>, string][] = [
    // setInterval beyond 2^31-1 ms fires every 1 ms (TimeoutOverflowWarning): a sweep loop.
    [{ SWEEP_INTERVAL_SECONDS: '3000000' }, 'SWEEP_INTERVAL_SECONDS must be between 1 and 2147483, got 3000000'],
    // The lease is renewed every third of it by a timer: the same overflow, a ledger append a ms.
    [{ JOB_LEASE_SECONDS: '99999999999' }, 'JOB_LEASE_SECONDS must be between 5 and 6442449, got 99999999999'],
    // The engine read these as its default without a word.
    [{ DECODE_MAX_MEMORY_MB: '2G' }, 'DECODE_MAX_MEMORY_MB must be a number above 0, got "2G"'],
    [{ DECODE_BUDGET_BASE_SECONDS: '-5' }, 'DECODE_BUDGET_BASE_SECONDS must be a number above 0, got "-5"'],
    [{ DECODE_BUDGET_FACTOR: '0' }, 'DECODE_BUDGET_FACTOR must be a number above 0, got "0"'],
    [{ DECODE_UNDECLARED_MAX_SECONDS: 'one hour' }, 'DECODE_UNDECLARED_MAX_SECONDS must be a number above 0, got "one hour"'],
    // Passed the start and failed every upload and readiness probe afterwards.
    [{ STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT must be an http(s) URL, got "minio:9000"'],
    // Was "cannot open the service's stores (...): Unexpected "z" at position 0 ...", not naming the variable.
    [{ EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'zz' }, 'KURRENTDB_URL must start with kurrentdb://, kurrent://, kdb:// or esdb:// (optionally +discover), got "zz"'],
  ];
  for (const [env, message] of cases) assert.equal(refusal(env), message, JSON.stringify(env));
});

test('env knobs: every value these took before is still taken', () => {
  const taken: Record<string, string>[] = [
    { SWEEP_INTERVAL_SECONDS: '2147483' }, { JOB_LEASE_SECONDS: '6442449' }, { JOB_LEASE_SECONDS: '600' },
    { DECODE_MAX_MEMORY_MB: '512' }, { DECODE_BUDGET_BASE_SECONDS: '1.5' }, { DECODE_BUDGET_FACTOR: '0.01' }, { DECODE_UNDECLARED_MAX_SECONDS: '1e3' },
    { DECODE_MAX_MEMORY_MB: '' },
    { STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000' }, { S3_ENDPOINT: 'not used by the disk driver' },
    { EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'kurrentdb://127.0.0.1:2113?tls=false' }, { EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'kurrentdb+discover://a,b,c' },
    { EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'esdb://127.0.0.1:2113?tls=false' }, { EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'esdb+discover://a:2113' },
  ];
  for (const env of taken) assert.equal(refusal(env), undefined, JSON.stringify(env));
});

test('a bad REP_COACH_API_URL is named as such (it was called --api, which was not given); a bad --api still names --api', async () => {
  for (const [argv, env, message] of [
    [['identity'], { REP_COACH_API_URL: 'localhost:8080', REP_COACH_API_KEY: 'k' }, 'error: REP_COACH_API_URL must be an http(s) URL, got "localhost:8080"'],
    [['identity'], { REP_COACH_API_URL: 'not a url', REP_COACH_API_KEY: 'k' }, 'error: REP_COACH_API_URL must be a URL, got "not a url"'],
    [['identity', '--api', 'ftp://x'], { REP_COACH_API_URL: 'http://127.0.0.1:9', REP_COACH_API_KEY: 'k' }, 'error: --api must be an http(s) URL, got "ftp://x"'],
  ] as const) {
    const out = memoryStream();
    const err = memoryStream();
    assert.equal(await cli([...argv], { out: out.stream, err: err.stream, env: { ...env } }), 2);
    assert.equal(err.text().split('\n')[0], message);
  }
});

test('a REP_COACH_API_KEY or --key with a line break inside is a bad argument naming it (exit 2), not network_error retries', async () => {
  for (const [argv, env, name] of [
    [['identity'], { REP_COACH_API_URL: 'http://127.0.0.1:9', REP_COACH_API_KEY: 'rk_a\nb' }, 'REP_COACH_API_KEY'],
    [['identity', '--key', 'rk_a\nb'], { REP_COACH_API_URL: 'http://127.0.0.1:9' }, '--key'],
  ] as const) {
    const out = memoryStream();
    const err = memoryStream();
    const started = Date.now();
    assert.equal(await cli([...argv], { out: out.stream, err: err.stream, env: { ...env } }), 2);
    assert.equal(err.text().split('\n')[0], `error: ${name}: apiKey holds a control character (a line break inside it?): no HTTP header can carry it`);
    assert.ok(Date.now() - started < 1000);
  }
});
