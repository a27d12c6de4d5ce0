// A real service over a temp DATA_DIR, the real API and storage host on real sockets (port 0).
// Tests use it through HTTP only, like a partner would.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { AnalysisEngine } from '../../src/analysis/engine.js';
import { decideKey } from '../../src/commands/keys.js';
import { storageCallbacks } from '../../src/commands/partner.js';
import { listenerTimeouts, loadConfig, type Config } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { hashApiKey, newApiKey, newKeyId, newPartnerId } from '../../src/ids.js';
import { startRunner, type Runner } from '../../src/runner/runner.js';
import { startDispatcher } from '../../src/webhooks/dispatcher.js';
import { openService, type Service } from '../../src/service.js';
import { createStorageHost } from '../../src/storage/host.js';
import { startS3rver } from './s3rver.js';

export interface Harness {
  base: string;
  svc: Service;
  config: Config;
  runner?: Runner;
  /** Issues a key directly through the ledger (the admin CLI does the same); returns the API key. */
  createKey(opts?: { limit?: number | null; partnerName?: string }): Promise<{ apiKey: string; keyId: string; partnerId: string }>;
  request(method: string, path: string, opts?: { key?: string; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  /** Mints a spot and PUTs bytes through the signed URL; returns the handle. */
  upload(key: string, bytes?: Buffer | string): Promise<string>;
}

export const silentLog = { info() {}, warn() {}, error() {} };

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Runs an in-process job runner with this engine (a double is fine in tests). */
  engine?: AnalysisEngine;
  clock?: () => Date;
  dataDir?: string;
  /** The storage driver; 's3' starts an S3 server (s3rver) for this test. Default disk. */
  storage?: 'disk' | 's3';
  /** Runs the webhook dispatcher in process (polling every 20 ms). */
  webhooks?: boolean;
  /** 'thread': the ledger's writer thread, as `npm start` opens the service (service.ts OpenOptions). */
  ledgerWriter?: 'thread';
}

export async function startHarness(t: TestContext, opts: HarnessOptions = {}): Promise<Harness> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'rc-test-'));
  const s3 = opts.storage === 's3' ? await startS3rver(t) : undefined;
  // The storage host listens first so the signed URLs can name the port it got.
  let svc: Service | undefined;
  const callbacks = () => storageCallbacks(svc!);
  const host = createStorageHost({
    get layout() {
      return svc!.disk!;
    },
    clock: () => svc!.clock(),
    log: silentLog,
    idleTimeoutMs: listenerTimeouts(opts.env).storageIdleMs,
    headersTimeoutMs: listenerTimeouts(opts.env).headersMs,
    acceptsUpload: (handle) => callbacks().acceptsUpload(handle),
    uploaded: (handle, size) => callbacks().uploaded(handle, size),
  });
  host.listen(0, '127.0.0.1');
  await once(host, 'listening');
  const storagePort = (host.address() as AddressInfo).port;
  // EVENT_STORE=postgres (with POSTGRES_URL) in the environment runs the suite on that server, with
  // a schema per DATA_DIR: as fresh as the SQLite ledger of a new DATA_DIR, and shared as it is.
  const ledgerEnv = process.env.EVENT_STORE === 'postgres'
    ? { EVENT_STORE: 'postgres', POSTGRES_URL: process.env.POSTGRES_URL, POSTGRES_SCHEMA: `rc_test_${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}` }
    : {};
  const config = loadConfig({
    ...ledgerEnv, DATA_DIR: dataDir, PORT: '0', STORAGE_PORT: String(storagePort), STORAGE_PUBLIC_URL: `http://127.0.0.1:${storagePort}`, LOG_LEVEL: 'silent', ...s3?.env, ...opts.env,
  });
  svc = await openService(config, opts.clock, { ledgerWriter: opts.ledgerWriter });
  let runner: Runner | undefined;
  const app = await buildApp(svc, { wakeRunner: () => runner?.wake() });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  if (opts.engine) {
    runner = startRunner(svc, opts.engine, { concurrency: 1, leaseSeconds: 30, maxAttempts: 3, providerRetries: 2, backoffMs: () => 10, pollMs: 50, log: silentLog });
  }
  const dispatcher = opts.webhooks ? startDispatcher(svc, { pollMs: 20, log: silentLog }) : undefined;

  t.after(async () => {
    await runner?.stop();
    await dispatcher?.stop();
    await app.close();
    host.close();
    await svc.close();
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const harness: Harness = {
    base,
    svc,
    config,
    runner,
    async createKey({ limit = null, partnerName = 'Test Partner' } = {}) {
      const apiKey = newApiKey();
      const keyId = newKeyId();
      const partnerId = newPartnerId();
      const now = svc.clock().toISOString();
      await svc.ledger.handle(keyId, (s) => decideKey({ type: 'IssueKey', keyId, partnerId, partnerName, keyHash: hashApiKey(apiKey), limit, now }, s));
      return { apiKey, keyId, partnerId };
    },
    async request(method, path, { key, body, raw, headers = {} } = {}) {
      const h: Record<string, string> = { ...headers };
      if (key) h.authorization = `Bearer ${key}`;
      let payload: string | Buffer | undefined = raw;
      if (body !== undefined) {
        payload = JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      const res = await fetch(path.startsWith('http') ? path : base + path, { method, headers: h, body: typeof payload === 'string' || payload === undefined ? payload : new Uint8Array(payload) });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, headers: res.headers, text };
    },
    async upload(key, bytes = Buffer.from('not really a video, but bytes')) {
      const minted = await harness.request('POST', '/v1/uploads', { key });
      if (minted.status !== 201) throw new Error(`mint failed: ${minted.status} ${minted.text}`);
      const put = await fetch(minted.body.upload_url, { method: 'PUT', body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes), headers: { 'content-type': 'video/mp4' } });
      if (put.status !== 200) throw new Error(`PUT failed: ${put.status}`);
      return minted.body.handle as string;
    },
  };
  return harness;
}
