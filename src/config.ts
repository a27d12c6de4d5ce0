// Configuration from the environment, validated once at boot: a bad value stops the boot with a
// message naming the variable.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { MAX_WINDOW_SECONDS } from './commands/state.js';

/** Jobs one process runs at once unless WORKER_CONCURRENCY says otherwise: one per core, at most 4. */
export const DEFAULT_WORKERS = Math.max(1, Math.min(availableParallelism(), 4));

export interface Config {
  host: string;
  port: number;
  storagePort: number;
  /** Base of the signed upload URLs handed to partners (the storage host as partners reach it). */
  storagePublicUrl: string;
  dataDir: string;
  spotTtlSeconds: number;
  spotsPerWindow: number;
  spotsWindowSeconds: number;
  unclaimedBytesCap: number;
  workerConcurrency: number;
  eventStore: 'sqlite' | 'kurrentdb' | 'postgres';
  kurrentdbUrl: string | undefined;
  /** EVENT_STORE=postgres: the libpq URL, the schema holding the ledger, this process's connections. */
  postgres: { url: string | undefined; schema: string; poolSize: number };
  storageDriver: 'disk' | 's3';
  s3: { endpoint?: string; bucket?: string; region?: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean };
  logLevel: string;
  bodyLimitBytes: number;
  jobLeaseSeconds: number;
  jobMaxAttempts: number;
  providerRetries: number;
  sweepIntervalSeconds: number;
  /** How long a write waits for another process's lock before the store counts as unavailable. */
  storeBusyTimeoutMs: number;
  /** On SIGTERM, how long running analyses may finish before their leases are given back. */
  shutdownGraceSeconds: number;
  webhooks: {
    /** Deliver to loopback, private and link-local addresses (tests, on-premise receivers). */
    allowPrivateHosts: boolean;
    /** Multiplies every delay of the 3-day retry schedule, the window included (tests shrink it). */
    retryScale: number;
    /** How long one delivery waits for the receiver's answer. */
    timeoutSeconds: number;
  };
  /** Hours a claimed video is kept after its job ends; 0 deletes it at once. */
  videoRetentionHours: number;
  /** Prometheus listener (GET /metrics) on HOST; 0 = none. */
  metricsPort: number;
  /** Master key of the secrets vault (32 bytes: raw, hex or base64); unset = DATA_DIR/secrets.key, made on first start. */
  secretsKeyFile: string | undefined;
  /** Socket and request timeouts of the two listeners (README "Timeouts"). */
  timeouts: ListenerTimeouts;
}

export interface ListenerTimeouts {
  /** API: the whole request (headers and body) must have arrived within this (Node's requestTimeout). */
  apiRequestMs: number;
  /** API and storage host: the request's headers must have arrived within this (Node's headersTimeout). */
  headersMs: number;
  /** API: a socket with no bytes in either direction for this long is closed (fastify connectionTimeout). */
  apiIdleMs: number;
  /** API: how long an idle keep-alive connection is kept open between requests. */
  keepAliveMs: number;
  /** Storage host: an upload with no bytes arriving for this long is cut (408); its total duration is never bounded. */
  storageIdleMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function decimal(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw.trim())) throw new ConfigError(`${name} must be a number >= 0, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function positive(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.trim());
  if (!/^\d*\.?\d+(e-?\d+)?$/i.test(raw.trim()) || !(value > 0) || value > 1000) throw new ConfigError(`${name} must be a number above 0 and at most 1000, got "${raw}"`);
  return value;
}

/**
 * The decoder's knobs (DECODE_*) are read by the engine process (analysis/decoder/sandbox.ts),
 * which takes any value that is not a number above 0 for its default without a word: a typo
 * (`DECODE_MAX_MEMORY_MB=2G`) ran with 1024. Checked here at boot by the same rule, so such a
 * value stops the start naming the variable (issue rx); every value the engine used is still taken.
 */
function engineNumber(env: Env, name: string): void {
  const raw = env[name];
  if (raw === undefined || raw === '') return;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a number above 0, got "${raw}"`);
}

/** setTimeout/setInterval take at most 2^31 - 1 ms; beyond it Node warns and fires after 1 ms. */
const TIMER_MAX_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    const parsed = new URL(raw);
    if (!/^https?:$/.test(parsed.protocol)) throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** A libpq connection URL (postgres://user:password@host:port/database?options). */
export function postgresUrl(raw: string | undefined): void {
  if (!raw) throw new ConfigError('POSTGRES_URL is required when EVENT_STORE=postgres (e.g. postgres://user:password@host:5432/database)');
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError('POSTGRES_URL must be a libpq URL like postgres://user:password@host:5432/database, got something that is not a URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigError(`POSTGRES_URL must start with postgres:// or postgresql://, got "${parsed.protocol}//..."`);
  }
}

/**
 * A variable naming where data or a key lives. Unlike the other knobs, set-but-empty is refused,
 * not read as the default: `DATA_DIR=$DIR` with DIR unset would otherwise point every command at
 * ./data (an admin command changing a ledger the operator did not mean), and an empty
 * SECRETS_KEY_FILE would quietly make a new master key in DATA_DIR instead of reading the file.
 */
function pathOf(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new ConfigError(`${name} is set but empty: name a path, or unset it for the default`);
  return resolve(raw);
}

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 8080, 0, 65535);
  const storagePort = int(env, 'STORAGE_PORT', 8081, 0, 65535);
  const eventStore = oneOf(env, 'EVENT_STORE', ['sqlite', 'kurrentdb', 'postgres'] as const, 'sqlite');
  const storageDriver = oneOf(env, 'STORAGE_DRIVER', ['disk', 's3'] as const, 'disk');
  if (eventStore === 'kurrentdb' && !env.KURRENTDB_URL) throw new ConfigError('KURRENTDB_URL is required when EVENT_STORE=kurrentdb');
  if (eventStore === 'postgres') postgresUrl(env.POSTGRES_URL);
  const pgSchema = env.POSTGRES_SCHEMA || 'rep_coach';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(pgSchema)) throw new ConfigError(`POSTGRES_SCHEMA must be a lower-case identifier (letters, digits, _), got "${pgSchema}"`);
  if (storageDriver === 's3' && !env.S3_BUCKET) throw new ConfigError('S3_BUCKET is required when STORAGE_DRIVER=s3');
  // A bad endpoint used to pass the start and fail every upload and readiness probe later.
  if (storageDriver === 's3' && env.S3_ENDPOINT) url(env, 'S3_ENDPOINT', '');
  // The schemes the KurrentDB client parses, EventStoreDB's esdb:// among them (deprecated by the
  // client with a warning, still what an EventStoreDB operator has in hand): none refused that works.
  if (eventStore === 'kurrentdb' && !/^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//i.test(env.KURRENTDB_URL!)) {
    throw new ConfigError(`KURRENTDB_URL must start with kurrentdb://, kurrent://, kdb:// or esdb:// (optionally +discover), got "${env.KURRENTDB_URL}"`);
  }
  for (const name of ['DECODE_MAX_MEMORY_MB', 'DECODE_BUDGET_BASE_SECONDS', 'DECODE_BUDGET_FACTOR', 'DECODE_UNDECLARED_MAX_SECONDS']) engineNumber(env, name);
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    host,
    port,
    storagePort,
    storagePublicUrl: url(env, 'STORAGE_PUBLIC_URL', `http://${publicHost.includes(':') ? `[${publicHost}]` : publicHost}:${storagePort}`),
    dataDir: pathOf(env, 'DATA_DIR') ?? resolve('./data'),
    secretsKeyFile: pathOf(env, 'SECRETS_KEY_FILE'),
    spotTtlSeconds: int(env, 'UPLOAD_SPOT_TTL_SECONDS', 900, 1, MAX_WINDOW_SECONDS),
    spotsPerWindow: int(env, 'SPOTS_PER_WINDOW', 100, 0),
    spotsWindowSeconds: int(env, 'SPOTS_WINDOW_SECONDS', 3600, 1, MAX_WINDOW_SECONDS),
    unclaimedBytesCap: int(env, 'UNCLAIMED_BYTES_CAP', 5 * 1024 ** 3, 0),
    // One job per core by default: each engine runs the pose model on one thread (pose/models.ts),
    // so on 2 cores a second engine ended 32 jobs in 20 s of a deep queue against 26-27 for one,
    // the API's p99 within its bound either way (README "Benchmarks", bench:queue). Capped at 4:
    // each engine holds ~175 MB plus its decoders, and the API needs a core of its own beyond that.
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', DEFAULT_WORKERS, 0, 64),
    eventStore,
    kurrentdbUrl: env.KURRENTDB_URL || undefined,
    postgres: { url: env.POSTGRES_URL || undefined, schema: pgSchema, poolSize: int(env, 'POSTGRES_POOL_SIZE', 10, 1, 1000) },
    storageDriver,
    s3: {
      endpoint: env.S3_ENDPOINT || undefined,
      bucket: env.S3_BUCKET || undefined,
      region: env.S3_REGION || undefined,
      accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
      forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
    },
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    // Renewed every third of it by a timer (runner.ts), hence the timer's limit x 3.
    jobLeaseSeconds: int(env, 'JOB_LEASE_SECONDS', 300, 5, TIMER_MAX_SECONDS * 3),
    jobMaxAttempts: int(env, 'JOB_MAX_ATTEMPTS', 3, 1, 100),
    providerRetries: int(env, 'PROVIDER_RETRIES', 3, 0, 20),
    sweepIntervalSeconds: int(env, 'SWEEP_INTERVAL_SECONDS', 30, 1, TIMER_MAX_SECONDS),
    storeBusyTimeoutMs: int(env, 'STORE_BUSY_TIMEOUT_MS', 5000, 0, 600_000),
    shutdownGraceSeconds: int(env, 'SHUTDOWN_GRACE_SECONDS', 30, 0, 3600),
    webhooks: {
      allowPrivateHosts: bool(env, 'WEBHOOK_ALLOW_PRIVATE_HOSTS', false),
      retryScale: positive(env, 'WEBHOOK_RETRY_SCALE', 1),
      timeoutSeconds: int(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, 1, 120),
    },
    metricsPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
    videoRetentionHours: decimal(env, 'VIDEO_RETENTION_HOURS', 24, 0, 24 * 3650),
    timeouts: listenerTimeouts(env),
  };
}

/** Defaults: see README "Timeouts". Every value is in seconds in the environment. */
export function listenerTimeouts(env: Env = {}): ListenerTimeouts {
  const apiRequestMs = int(env, 'HTTP_REQUEST_TIMEOUT_SECONDS', 30, 1, 3600) * 1000;
  // Node refuses a headers timeout longer than the request timeout.
  const headersMs = Math.min(apiRequestMs, int(env, 'HTTP_HEADERS_TIMEOUT_SECONDS', 10, 1, 3600) * 1000);
  return {
    apiRequestMs,
    headersMs,
    apiIdleMs: int(env, 'HTTP_IDLE_TIMEOUT_SECONDS', 120, 1, 3600) * 1000,
    keepAliveMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', 72, 1, 3600) * 1000,
    storageIdleMs: int(env, 'UPLOAD_IDLE_TIMEOUT_SECONDS', 60, 1, 3600) * 1000,
  };
}
