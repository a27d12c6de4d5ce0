// Why a rebuild folds the keys, uploads and jobs tables in memory: replaying a ledger through the
// projection modules runs an SQL statement per event per table (a job row is written three or
// four times, and grows by its 2 KB result when it completes), and that was ~80% of a rebuild. While
// the bulk of the ledger is replayed into the fresh file, these three tables are folded here as
// plain rows and each row is written once, when its entity is final (a job completed, failed or
// cancelled; a spot claimed or expired) or when the bulk phase ends, by the writing thread
// (bulk-replay.ts; this fold runs on the reading one, bulk-worker.ts). The webhooks tables (few
// events; webhooksFilter() skips the job ends they cannot change) and the last catch-up under the
// ledger lock go through the modules as usual.
//
// The fold must write exactly the rows the modules' SQL writes on a connection that leaves results in
// the ledger, as a rebuild's file does (job-results.ts; `projections verify` compares every column;
// test/projections/bulk.int.test.ts replays one ledger both ways). Anything it does not
// model falls back to the SQL, so a new event type is projected right, only not faster:
//  - an event about a row already written out goes to the module's SQL on that row;
//  - an event type the fold does not know (one added after this file) first writes every folded row
//    of the table out, then goes to the module's SQL.
import { keyIdOfStream, type LedgerEventType } from '../events/ledger.js';
import type { RecordedEvent } from '../events/store/port.js';

type Row = Record<string, string | number | null>;
type Data = Record<string, any>;
/** Key hashes taken (keys.key_hash is UNIQUE: an INSERT OR IGNORE of a second key with it does nothing). */
interface Context {
  keyHashes: Set<unknown>;
}
type Fold = (rows: Map<string, Row>, id: string, e: RecordedEvent, d: Data, ctx: Context) => void;

interface Table {
  name: string;
  key: string;
  columns: string[];
  /** The entity an event is about. */
  idOf(e: RecordedEvent, d: Data): string;
  /** Event types after which the row is final (written out and forgotten). */
  final: ReadonlySet<string>;
  folds: Record<string, Fold>;
}

const ALL_TYPES = [
  'KeyIssued', 'KeySuspended', 'KeyReinstated', 'KeyRevoked', 'LimitSet', 'SpotMinted', 'SpotUploaded', 'SpotExpired',
  'SpotClaimed', 'JobQueued', 'JobStarted', 'JobLeaseExtended', 'JobLeaseReleased', 'JobCompleted', 'JobFailed',
  'JobCancelled', 'WebhookEndpointRegistered', 'WebhookSecretRotated', 'WebhookEndpointRemoved', 'WebhookDeliveryAttempted',
  'WebhookDeliverySucceeded', 'WebhookDeliveryFailed', 'WebhookRedeliveryRequested', 'IdempotentRequestStarted',
  'IdempotentResponseRecorded', 'IdempotentRequestReleased', 'VideoPurged',
] as const satisfies readonly LedgerEventType[];
/** Compiles only while ALL_TYPES lists every ledger event type (one it missed would be replayed as unknown: right, but slowly). */
const listsEveryType: Exclude<LedgerEventType, (typeof ALL_TYPES)[number]> extends never ? true : false = true;
void listsEveryType;

const KNOWN_TYPES = new Set<string>(ALL_TYPES);
const TERMINAL = new Set(['JobCompleted', 'JobFailed', 'JobCancelled']);
const ENDPOINT_REGISTERED = 'WebhookEndpointRegistered';
/** The event types webhooks.ts's SQL acts on: its own, and a job's end (for the endpoints of the job's key). */
const WEBHOOK_TYPES = new Set([...TERMINAL, ...ALL_TYPES.filter((type) => type.startsWith('Webhook'))]);

/**
 * Which events the webhooks module must apply during a bulk replay. A job's end makes it look up
 * the endpoints of the job's key (a SELECT per finished job, most of that module's cost); a key
 * that never registered one has none, so the module would change nothing. Types the list
 * above does not know go to the module, as ever.
 */
export function webhooksFilter(): (e: RecordedEvent) => boolean {
  const keysWithEndpoints = new Set<string>();
  return (e) => {
    // By key id, as the module matches endpoints to a job's end.
    if (e.type === ENDPOINT_REGISTERED) keysWithEndpoints.add(keyIdOfStream(e.stream));
    if (TERMINAL.has(e.type)) return keysWithEndpoints.has(keyIdOfStream(e.stream));
    return WEBHOOK_TYPES.has(e.type) || !KNOWN_TYPES.has(e.type);
  };
}

/** Sets fields of an existing row (an UPDATE ... WHERE key = ? that finds no row changes nothing). */
const update = (change: (row: Row, d: Data) => void, stamp: (e: RecordedEvent, d: Data) => string): Fold =>
  (rows, id, e, d) => {
    const row = rows.get(id);
    if (!row) return;
    change(row, d);
    row.updated_at = stamp(e, d);
  };
const byRecordedAt = (e: RecordedEvent) => e.recordedAt;
const byDataAt = (_: RecordedEvent, d: Data) => d.at as string;


// identity.ts
const keyStatus = (to: string): Fold => update((row) => void (row.status = row.status === 'revoked' ? 'revoked' : to), byRecordedAt);
const keys: Table = {
  name: 'keys',
  key: 'key_id',
  columns: ['key_id', 'partner_id', 'partner_name', 'key_hash', 'status', 'limit_n', 'used', 'held', 'created_at', 'updated_at'],
  idOf: (e) => keyIdOfStream(e.stream),
  final: new Set(),
  folds: {
    KeyIssued: (rows, id, _, d, ctx) => {
      // INSERT OR IGNORE: neither the key id nor the (UNIQUE) key hash may be taken already.
      if (rows.has(id) || ctx.keyHashes.has(d.keyHash)) return;
      ctx.keyHashes.add(d.keyHash);
      rows.set(id, { key_id: id, partner_id: d.partnerId, partner_name: d.partnerName, key_hash: d.keyHash, status: 'active', limit_n: d.limit, used: 0, held: 0, created_at: d.at, updated_at: d.at });
    },
    KeySuspended: keyStatus('suspended'),
    KeyReinstated: keyStatus('active'),
    KeyRevoked: update((row) => void (row.status = 'revoked'), byRecordedAt),
    LimitSet: update((row, d) => void (row.limit_n = d.limit), byRecordedAt),
    JobQueued: update((row) => void (row.held = (row.held as number) + 1), byRecordedAt),
    JobCompleted: update((row) => void ((row.held = (row.held as number) - 1), (row.used = (row.used as number) + 1)), byRecordedAt),
    JobFailed: update((row) => void ((row.held = (row.held as number) - 1), (row.used = (row.used as number) + 1)), byRecordedAt),
    JobCancelled: update((row) => void (row.held = (row.held as number) - 1), byRecordedAt),
  },
};

// uploads.ts
const uploads: Table = {
  name: 'uploads',
  key: 'handle',
  columns: ['handle', 'key_id', 'state', 'expires_at', 'size', 'job_id', 'exercise_id', 'minted_at', 'updated_at'],
  idOf: (_, d) => d.handle,
  final: new Set(['SpotClaimed', 'SpotExpired']),
  folds: {
    SpotMinted: (rows, id, e, d) => {
      if (rows.has(id)) return;
      rows.set(id, { handle: d.handle, key_id: keyIdOfStream(e.stream), state: 'minted', expires_at: d.expiresAt, size: 0, job_id: null, exercise_id: null, minted_at: d.at, updated_at: d.at });
    },
    SpotUploaded: (rows, id, _, d) => {
      const row = rows.get(id);
      if (!row || (row.state !== 'minted' && row.state !== 'uploaded')) return;
      Object.assign(row, { state: d.size > 0 ? 'uploaded' : 'minted', size: d.size, updated_at: d.at });
    },
    SpotClaimed: update((row, d) => void Object.assign(row, { state: 'claimed', size: d.size, job_id: d.jobId, exercise_id: d.exerciseId }), byDataAt),
    SpotExpired: (rows, id, _, d) => {
      const row = rows.get(id);
      if (!row || row.state === 'claimed') return;
      Object.assign(row, { state: 'expired', updated_at: d.at });
    },
  },
};

// jobs.ts
const jobs: Table = {
  name: 'jobs',
  key: 'job_id',
  columns: ['job_id', 'key_id', 'handle', 'exercise_id', 'status', 'attempt', 'worker', 'lease_until', 'result', 'engine_version', 'error_code', 'message', 'cancelled_by', 'seq', 'created_at', 'updated_at', 'retryable', 'video_purged_at', 'started_seq', 'result_at'],
  idOf: (_, d) => d.jobId,
  final: new Set(['JobCompleted', 'JobFailed', 'JobCancelled']),
  folds: {
    JobQueued: (rows, id, e, d) => {
      if (rows.has(id)) return;
      rows.set(id, {
        job_id: d.jobId, key_id: keyIdOfStream(e.stream), handle: d.handle, exercise_id: d.exerciseId, status: 'queued', attempt: 0, worker: null, lease_until: null,
        result: null, engine_version: null, error_code: null, message: null, cancelled_by: null, seq: e.position, created_at: d.at, updated_at: d.at, retryable: null,
        video_purged_at: null, started_seq: null, result_at: null,
      });
    },
    JobStarted: (rows, id, e, d) => {
      const row = rows.get(id);
      if (row) Object.assign(row, { status: 'processing', attempt: d.attempt, worker: d.worker, lease_until: d.leaseUntil, started_seq: e.position, updated_at: d.at });
    },
    JobLeaseExtended: update((row, d) => void (row.lease_until = d.leaseUntil), byDataAt),
    JobLeaseReleased: update((row, d) => void Object.assign(row, { worker: null, lease_until: d.at }), byDataAt),
    // The result stays in the ledger: a rebuild's file serves beside the SQLite ledger (job-results.ts).
    JobCompleted: (rows, id, e, d) => {
      const row = rows.get(id);
      if (row) Object.assign(row, { status: 'completed', result_at: e.position, engine_version: d.engineVersion, lease_until: null, updated_at: d.at });
    },
    JobFailed: update((row, d) => void Object.assign(row, { status: 'failed', error_code: d.errorCode, message: d.message, retryable: d.retryable ? 1 : 0, lease_until: null }), byDataAt),
    JobCancelled: update((row, d) => void Object.assign(row, { status: 'cancelled', cancelled_by: d.by, lease_until: null }), byDataAt),
    // updated_at stays: only the video is gone (normally the job is final and written out by now).
    VideoPurged: (rows, id, _, d) => {
      const row = rows.get(id);
      if (row) row.video_purged_at = d.at;
    },
  },
};

/** The tables the fold writes, in the order of a sink's table index. */
export const FOLDED = [keys, uploads, jobs].map((t) => ({ name: t.name, columns: t.columns }));

/** Receives each row the fold has finished: FOLDED[table].columns' values, in that order. */
export type RowSink = (table: number, values: unknown[]) => void;

export interface BulkFold {
  /**
   * Folds the event into the tables that model it. Returns the tables whose modules must still
   * apply it with their SQL (undefined: none of keys, uploads and jobs).
   */
  fold(e: RecordedEvent): string[] | undefined;
  /** Writes every folded row out; the modules' SQL projects everything after this. */
  finish(): void;
}

export function bulkFold(sink: RowSink): BulkFold {
  const ctx: Context = { keyHashes: new Set() };
  const state = [keys, uploads, jobs].map((t, index) => ({ ...t, index, rows: new Map<string, Row>(), written: new Set<string>() }));
  type State = (typeof state)[number];
  // Per event type, the tables that fold it (the others ignore it), looked up once per event.
  const routes = new Map(ALL_TYPES.map((type) => [type, state.filter((t) => type in t.folds).map((t) => ({ t, fold: t.folds[type]!, final: t.final.has(type) }))]));
  const writeOut = (t: State, id: string, row: Row) => {
    sink(t.index, t.columns.map((c) => row[c]));
    t.rows.delete(id);
    t.written.add(id);
  };
  const flush = (t: State) => {
    for (const [id, row] of t.rows) writeOut(t, id, row);
  };
  return {
    fold(e) {
      const route = routes.get(e.type);
      if (!route) {
        // A type this file does not know: every table's rows out, then the modules' SQL.
        for (const t of state) flush(t);
        return state.map((t) => t.name);
      }
      let sql: string[] | undefined;
      const d = e.data as Data;
      for (const { t, fold, final } of route) {
        const id = t.idOf(e, d);
        if (t.written.has(id)) {
          (sql ??= []).push(t.name);
          continue;
        }
        fold(t.rows, id, e, d, ctx);
        const row = final ? t.rows.get(id) : undefined;
        if (row) writeOut(t, id, row);
      }
      return sql;
    },
    finish() {
      for (const t of state) flush(t);
    },
  };
}
