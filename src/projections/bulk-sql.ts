// The bulk phase of `projections rebuild`, set-based inside SQLite: the ledger is ATTACHed to the
// fresh file and the keys, uploads and jobs tables are filled by a few INSERT ... SELECT
// statements, so the events never cross into JavaScript one by one (issue 22: a rebuild at least
// 0.5x a raw scan). Reading an event into JS, parsing it there and writing rows back one statement
// at a time was most of a rebuild's CPU (README, bench:rebuild).
//
// How the modules' event-by-event SQL is reproduced with sets. Each event of a job (or an upload)
// sets some of its row's columns, whatever the row held (jobs.ts), so a column's final value is the
// one set by the LAST event of the types that set it: one pass copies the fields the tables need
// out of each event into a scratch table (`ev`, one JSON parse per event), one GROUP BY per table
// takes per entity the position of the last event of each such group of types, and the rows are
// read off those positions. The exceptions are spelled out where they are handled:
//  - a row exists from its first JobQueued (SpotMinted, KeyIssued) on; events before it change
//    nothing (the UPDATE finds no row), and a second one is ignored (INSERT OR IGNORE);
//  - uploads.ts's updates depend on the state (an upload after an expiry changes nothing);
//  - keys are few, and KeyIssued depends on which key hashes are taken: decided in JS;
//  - the webhooks tables (few events; a job's end reads the endpoints of its key) go through the
//    module, event by event, for the events that can change them.
// An entity whose events do not fit the set-based model (events before its creation, an upload
// after its expiry) is replayed through its module instead, event by event. A ledger with an event
// type this file does not know is not touched: the caller falls back to the in-memory fold (bulk.ts).
//
// `projections verify` replays through the modules and compares every column of every table;
// test/projections/bulk.int.test.ts replays ledgers with the odd cases both ways.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { CURRENT_SCHEMA_VERSION, type LedgerEventType } from '../events/ledger.js';
import { upcast } from '../events/upcasters.js';
import type { JobsThreadData } from './bulk-sql-jobs.js';
import { removeDb } from './generations.js';
import { recorded, type EventRow } from './replay.js';
import { applyModules, openReadModels } from './runner.js';

/**
 * Per event type: its code in the scratch table, and the fields copied out of its data into `v` (a
 * JSONB array, `at` first; jsonb_extract with two or more paths makes an array, so a type with one
 * field names its entity too). Types with no fields are kept for their position and key only.
 */
const EVENTS: Record<LedgerEventType, [code: number, fields: string[]]> = {
  KeyIssued: [1, ['at', 'partnerId', 'partnerName', 'keyHash', 'limit']],
  KeySuspended: [2, []],
  KeyReinstated: [3, []],
  KeyRevoked: [4, []],
  LimitSet: [5, ['at', 'limit']],
  SpotMinted: [10, ['at', 'expiresAt']],
  SpotUploaded: [11, ['at', 'size']],
  SpotClaimed: [12, ['at', 'size', 'jobId', 'exerciseId']],
  SpotExpired: [13, ['at', 'handle']],
  JobQueued: [20, ['at', 'handle', 'exerciseId']],
  JobStarted: [21, ['at', 'attempt', 'worker', 'leaseUntil']],
  JobLeaseExtended: [22, ['at', 'leaseUntil']],
  JobLeaseReleased: [23, ['at', 'jobId']],
  JobCompleted: [24, ['at', 'engineVersion']],
  JobFailed: [25, ['at', 'errorCode', 'message', 'retryable']],
  JobCancelled: [26, ['at', 'by']],
  VideoPurged: [27, ['at', 'jobId']],
  // The webhooks module applies these itself (30: an endpoint registered, 31: the others).
  WebhookEndpointRegistered: [30, []],
  WebhookSecretRotated: [31, []],
  WebhookEndpointRemoved: [31, []],
  WebhookDeliveryAttempted: [31, []],
  WebhookDeliverySucceeded: [31, []],
  WebhookDeliveryFailed: [31, []],
  WebhookRedeliveryRequested: [31, []],
  // No read model projects these (0: not copied).
  IdempotentRequestStarted: [0, []],
  IdempotentResponseRecorded: [0, []],
  IdempotentRequestReleased: [0, []],
};
const UNKNOWN = 99;

/**
 * Which events a fill copies into temp.ev: 'all'; 'jobs', the jobs' events alone (the jobs thread's
 * part, bulk-sql-jobs.ts); 'rest', the others, plus the job events the key counters and the webhooks
 * count (queued and ended) by position, type and key only, their JSON not read.
 */
type Part = 'all' | 'jobs' | 'rest';
const isJob = (code: number) => code >= 20 && code <= 27;

// One JSON parse per event (the id's ->> and jsonb_extract share SQLite's parse cache). Old schema
// versions are lifted by the upcasters, in JS (upcast_data, registered below), as every read does.
function fillSql(part: Part): string {
  const values = Object.values(EVENTS)
    .filter(([code, fields]) => fields.length > 0 && (part !== 'rest' || !isJob(code)))
    .map(([code, fields]) => `WHEN ${code} THEN jsonb_extract(d, ${fields.map((f) => `'$.${f}'`).join(', ')})`)
    .join(' ');
  const jobId = part === 'rest' ? '' : ` WHEN t BETWEEN 20 AND 27 THEN d->>'jobId'`;
  const kept = { all: 't > 0', jobs: 't BETWEEN 20 AND 27', rest: 't > 0 AND t NOT IN (21, 22, 23, 27)' }[part];
  return `
INSERT INTO temp.ev (p, t, k, id, v)
SELECT position, t, substr(stream, 8),
  CASE WHEN t BETWEEN 10 AND 13 THEN d->>'handle'${jobId} END,
  CASE t ${values} END
FROM (SELECT position, stream, coalesce(codes.t, ${UNKNOWN}) AS t,
        CASE WHEN schema_version < ${CURRENT_SCHEMA_VERSION} THEN upcast_data(events.type, schema_version, data) ELSE data END AS d
      FROM ledger.events LEFT JOIN temp.codes ON codes.type = events.type WHERE position <= ?)
WHERE ${kept}`;
}

// Jobs (jobs.ts). Per job: its first JobQueued (q), its first event of any kind (f: before q means
// irregular), and the last event of each group of types that sets a group of columns.
const JOB_AGG = `
CREATE TEMP TABLE jagg AS
SELECT id, min(p) FILTER (WHERE t = 20) AS q, min(p) AS f,
  max(p) FILTER (WHERE t IN (21, 24, 25, 26)) AS ps,
  max(p) FILTER (WHERE t = 21) AS pst,
  max(p) FILTER (WHERE t IN (21, 23)) AS pw,
  max(p) FILTER (WHERE t BETWEEN 21 AND 26) AS pl,
  max(p) FILTER (WHERE t IN (22, 23)) AS plx,
  max(p) FILTER (WHERE t = 24) AS pc,
  max(p) FILTER (WHERE t = 25) AS pf,
  max(p) FILTER (WHERE t = 26) AS px,
  max(p) FILTER (WHERE t = 27) AS pp,
  min(k) AS k, max(k) AS k_max,
  count(*) FILTER (WHERE t = 20) AS queued, count(*) FILTER (WHERE t IN (24, 25)) AS used, count(*) FILTER (WHERE t = 26) AS cancelled,
  max(p) FILTER (WHERE t IN (20, 24, 25, 26)) AS last
FROM temp.ev WHERE t BETWEEN 20 AND 27 GROUP BY id`;

/** As jobs.ts binds `d.retryable ? 1 : 0`: JavaScript's truthiness of a JSON value. */
const truthy = (v: string, i: number) =>
  `CASE json_type(${v}, '$[${i}]') WHEN 'true' THEN 1 WHEN 'object' THEN 1 WHEN 'array' THEN 1 WHEN 'integer' THEN (${v}->>${i}) <> 0
    WHEN 'real' THEN (${v}->>${i}) <> 0 WHEN 'text' THEN length(${v}->>${i}) > 0 ELSE 0 END`;

// status: the last start or end; lease_until: set by a start, an extension, a release (its time)
// and cleared by an end; updated_at: the time of the last event but a second JobQueued or a purge.
// Which event was last in each group is read off the positions (positions are unique: ps equal to
// pst means the last start-or-end was a start), so only the start, the end and the queueing are
// joined for a regular job, plus the last extension or release when it is the last of its group:
// each join is a seek in the scratch table (~1 us a row; 22i counted ~0.2 s for the two it saves).
// The result stays in the ledger (result NULL, result_at its position: job-results.ts).
const INSERT_JOBS = `
INSERT INTO main.jobs (job_id, key_id, handle, exercise_id, status, attempt, worker, lease_until, result, engine_version, error_code, message,
  cancelled_by, seq, created_at, updated_at, retryable, video_purged_at, started_seq, result_at)
SELECT g.id, q.k, q.v->>1, q.v->>2,
  CASE g.ps WHEN g.pst THEN 'processing' WHEN g.pc THEN 'completed' WHEN g.pf THEN 'failed' WHEN g.px THEN 'cancelled' ELSE 'queued' END,
  CASE WHEN g.pst IS NULL THEN 0 ELSE st.v->>1 END,
  CASE g.pw WHEN g.pst THEN st.v->>2 END,
  CASE g.pl WHEN g.pst THEN st.v->>3 WHEN g.plx THEN CASE l.t WHEN 22 THEN l.v->>1 ELSE l.v->>0 END END,
  NULL, c.v->>1, f.v->>1, f.v->>2, x.v->>1, g.q, q.v->>0,
  CASE g.pl WHEN g.pst THEN st.v->>0 WHEN g.pc THEN c.v->>0 WHEN g.pf THEN f.v->>0 WHEN g.px THEN x.v->>0 WHEN g.plx THEN l.v->>0 ELSE q.v->>0 END,
  CASE WHEN g.pf IS NOT NULL THEN ${truthy('f.v', 3)} END,
  pp.v->>0, g.pst, g.pc
FROM temp.jagg g JOIN temp.ev q ON q.p = g.q
  LEFT JOIN temp.ev st ON st.p = g.pst LEFT JOIN temp.ev c ON c.p = g.pc LEFT JOIN temp.ev f ON f.p = g.pf
  LEFT JOIN temp.ev x ON x.p = g.px LEFT JOIN temp.ev l ON l.p = CASE WHEN g.pl = g.plx THEN g.pl END
  LEFT JOIN temp.ev pp ON pp.p = g.pp
WHERE g.q IS NOT NULL AND g.f = g.q`;

// Uploads (uploads.ts): a claim sets the row whatever its state; an expiry sets it unless claimed;
// an upload only while minted or uploaded. So: the last claim, else expired from the first expiry
// on (time of the last one) with the size of the last upload, else the last upload, else minted.
// A claimed upload (most) is read off its mint and its claim: the upload and the expiry are joined
// only for the others (a NULL position seeks nothing).
const UPLOAD_AGG = `
CREATE TEMP TABLE uagg AS
SELECT id, min(p) FILTER (WHERE t = 10) AS m, min(p) AS f,
  max(p) FILTER (WHERE t = 11) AS pu,
  max(p) FILTER (WHERE t = 12) AS pc,
  min(p) FILTER (WHERE t = 13) AS px1,
  max(p) FILTER (WHERE t = 13) AS pxn
FROM temp.ev WHERE t BETWEEN 10 AND 13 GROUP BY id`;

// Not regular: an event before the mint, or (unclaimed) an upload after the first expiry.
const UPLOAD_REGULAR = 'g.f = g.m AND (g.pc IS NOT NULL OR g.px1 IS NULL OR g.pu IS NULL OR g.pu < g.px1)';

const INSERT_UPLOADS = `
INSERT INTO main.uploads (handle, key_id, state, expires_at, size, job_id, exercise_id, minted_at, updated_at)
SELECT g.id, m.k,
  CASE WHEN g.pc IS NOT NULL THEN 'claimed' WHEN g.px1 IS NOT NULL THEN 'expired' WHEN (u.v->>1) > 0 THEN 'uploaded' ELSE 'minted' END,
  m.v->>1,
  CASE WHEN g.pc IS NOT NULL THEN c.v->>1 WHEN g.pu IS NOT NULL THEN u.v->>1 ELSE 0 END,
  c.v->>2, c.v->>3, m.v->>0,
  CASE WHEN g.pc IS NOT NULL THEN c.v->>0 WHEN g.px1 IS NOT NULL THEN xn.v->>0 WHEN g.pu IS NOT NULL THEN u.v->>0 ELSE m.v->>0 END
FROM temp.uagg g JOIN temp.ev m ON m.p = g.m LEFT JOIN temp.ev c ON c.p = g.pc
  LEFT JOIN temp.ev u ON u.p = CASE WHEN g.pc IS NULL THEN g.pu END LEFT JOIN temp.ev xn ON xn.p = CASE WHEN g.pc IS NULL THEN g.pxn END
WHERE g.m IS NOT NULL AND ${UPLOAD_REGULAR}`;

// Keys (identity.ts): the counters a job's events move on its key, and the last of them, per key.
// Summed from the jobs' aggregates when every job's events are on one key's stream; else (and for a
// key with job events before its KeyIssued, `after` its position) counted from the events.
const KEY_JOBS_SUMMED = `
SELECT k, min(f) AS f, sum(queued) AS queued, sum(used) AS used, sum(cancelled) AS cancelled, max(last) AS last
FROM temp.jagg GROUP BY k`;
const KEY_JOBS_COUNTED = `
SELECT k, min(p) AS f, count(*) FILTER (WHERE t = 20) AS queued, count(*) FILTER (WHERE t IN (24, 25)) AS used,
  count(*) FILTER (WHERE t = 26) AS cancelled, max(p) AS last
FROM temp.ev WHERE t IN (20, 24, 25, 26) AND p > @after AND (@key IS NULL OR k = @key) GROUP BY k`;

interface KeyJobs {
  k: string;
  f: number;
  queued: number;
  used: number;
  cancelled: number;
  last: number | null;
}

/** A key or webhook event (few), with the first fields of its data. */
interface RareEvent {
  p: number;
  t: number;
  k: string;
  v0: unknown;
  v1: unknown;
  v2: unknown;
  v3: unknown;
  v4: unknown;
}

/**
 * Replays the ledger at `ledgerPath` up to `upTo` into `target` (empty, its secondary indexes
 * dropped, results left in the ledger) and sets its checkpoint there. Returns false, having
 * changed nothing, when the ledger holds an event type this file does not model.
 *
 * `threads: 2` builds the jobs table on a second thread, into a file of its own (bulk-sql-jobs.ts),
 * while this one does the rest; its rows are then copied in. The jobs are the longest part (their
 * events' JSON, the biggest GROUP BY and insert), so the two halves take about as long.
 */
export async function sqlBulkReplay(target: Database.Database, ledgerPath: string, upTo: number, threads: 1 | 2 = 1): Promise<boolean> {
  const jobs = threads === 2 ? jobsOnThread(`${target.name}-jobs`, ledgerPath, upTo) : undefined;
  try {
    openScratch(target, ledgerPath);
    target.exec('BEGIN');
    target.prepare(fillSql(jobs ? 'rest' : 'all')).run(upTo);
    if (target.prepare(`SELECT 1 FROM temp.ev WHERE t = ${UNKNOWN} LIMIT 1`).get()) {
      target.exec('ROLLBACK');
      return false;
    }
    const irregularJobs = jobs ? [] : insertJobs(target);
    target.exec(UPLOAD_AGG);
    target.exec(INSERT_UPLOADS);
    // Key and webhook events are few: read once, in ledger order.
    const rare = target.prepare<[], RareEvent>('SELECT p, t, k, v->>0 AS v0, v->>1 AS v1, v->>2 AS v2, v->>3 AS v3, v->>4 AS v4 FROM temp.ev WHERE t < 10 OR t >= 30').all();
    insertKeys(target, rare, !jobs);
    // Entities whose events do not fit the model above: their events one by one through the module.
    replayThrough(target, 'jobs', irregularJobs);
    if (target.prepare(`SELECT 1 FROM temp.uagg g WHERE g.m IS NOT NULL AND NOT (${UPLOAD_REGULAR}) LIMIT 1`).get()) {
      replayThrough(target, 'uploads', pluck(target, `SELECT ev.p FROM temp.uagg g JOIN temp.ev ev ON ev.id = g.id AND ev.t BETWEEN 10 AND 13 WHERE g.m IS NOT NULL AND NOT (${UPLOAD_REGULAR}) ORDER BY ev.p`));
    }
    // The webhooks tables: their own events, and the job ends of keys that registered an endpoint.
    const hooks = rare.filter((e) => e.t >= 30);
    const hooked = [...new Set(hooks.filter((e) => e.t === 30).map((e) => e.k))];
    const ends = hooked.length === 0 ? [] : target.prepare('SELECT p FROM temp.ev WHERE t IN (24, 25, 26) AND k IN (SELECT value FROM json_each(?))').pluck().all(JSON.stringify(hooked)) as number[];
    replayThrough(target, 'webhooks', [...hooks.map((e) => e.p), ...ends].sort((a, b) => a - b));
    target.exec('COMMIT');
    if (jobs) copyJobs(target, jobs.file, await jobs.built);
    target.prepare('UPDATE checkpoint SET position = ? WHERE id = 1').run(upTo);
    return true;
  } finally {
    if (target.inTransaction) target.exec('ROLLBACK');
    target.exec('DROP TABLE IF EXISTS temp.ev; DROP TABLE IF EXISTS temp.codes; DROP TABLE IF EXISTS temp.jagg; DROP TABLE IF EXISTS temp.uagg');
    target.exec('DETACH DATABASE ledger');
    await jobs?.stop();
  }
}

/**
 * The scratch tables (in memory: ~100 bytes an event, ~100 MB per million events while the bulk
 * phase runs; a temporary file behind a 256 MB cache measured ~1 s slower per million, load ~9,
 * two rounds each way in turn: 6.4 and 7.0 s against 8.2 and 7.1 s), the ledger attached, and the
 * upcasters for fillSql.
 */
function openScratch(db: Database.Database, ledgerPath: string): void {
  db.function('upcast_data', { deterministic: true }, (type: unknown, version: unknown, data: unknown) => {
    const lifted = upcast({ type: String(type), schemaVersion: Number(version), data: JSON.parse(String(data)) });
    if (lifted.type !== type) throw new Error(`an upcaster changed the type of a ${String(type)} event`);
    return JSON.stringify(lifted.data);
  });
  db.pragma('temp_store = MEMORY');
  db.exec(`ATTACH DATABASE '${ledgerPath.replaceAll("'", "''")}' AS ledger`);
  db.exec(`CREATE TEMP TABLE codes (type TEXT PRIMARY KEY, t INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TEMP TABLE ev (p INTEGER PRIMARY KEY, t INTEGER NOT NULL, k TEXT NOT NULL, id TEXT, v BLOB)`);
  const code = db.prepare('INSERT INTO temp.codes (type, t) VALUES (?, ?)');
  for (const [type, [t]] of Object.entries(EVENTS)) code.run(type, t);
}

const pluck = (db: Database.Database, sql: string) => db.prepare(sql).pluck().all() as number[];

/**
 * main.jobs from the job events in temp.ev. Returns, in ledger order, the events of the jobs the
 * sets do not model (an event before the JobQueued), for jobs.ts to apply one by one.
 */
function insertJobs(db: Database.Database): number[] {
  db.exec(JOB_AGG);
  db.exec(INSERT_JOBS);
  if (!db.prepare('SELECT 1 FROM temp.jagg WHERE f < q LIMIT 1').get()) return [];
  return pluck(db, 'SELECT ev.p FROM temp.jagg g JOIN temp.ev ev ON ev.id = g.id AND ev.t BETWEEN 20 AND 27 WHERE g.f < g.q ORDER BY ev.p');
}

/** What the jobs thread hands back: the events left for jobs.ts (insertJobs). */
export interface JobsBuilt {
  irregular: number[];
}

/**
 * The jobs thread's part (bulk-sql-jobs.ts runs it): a read-model file at `file` whose jobs table
 * holds the rows of the ledger's jobs up to `upTo`, its indexes built after the rows (as the
 * rebuild's bulkLoadMode does), so that building them is off the rebuild's thread too.
 */
export function buildJobs(file: string, ledgerPath: string, upTo: number): JobsBuilt {
  // Made as the target is, so the two jobs tables have the same columns in the same order.
  const db = openReadModels(file);
  try {
    const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' AND sql IS NOT NULL").all() as { name: string; sql: string }[];
    for (const ix of indexes) db.exec(`DROP INDEX ${ix.name}`);
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -131072');
    db.pragma('mmap_size = 1073741824');
    openScratch(db, ledgerPath);
    db.exec('BEGIN');
    db.prepare(fillSql('jobs')).run(upTo);
    const irregular = insertJobs(db);
    db.exec('COMMIT');
    db.exec('DROP TABLE temp.ev; DROP TABLE temp.jagg');
    for (const ix of indexes) db.exec(ix.sql);
    return { irregular };
  } finally {
    db.close();
  }
}

/** The jobs thread's module, with this file's extension (.ts from the sources), started by the plain-JS bootstrap bulk-replay.ts uses. */
const JOBS_THREAD = new URL(`./bulk-sql-jobs${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
const BOOT = new URL('./bulk-worker-boot.mjs', import.meta.url);

/** Starts buildJobs on a worker thread; `stop` ends it if it still runs and removes its file. */
function jobsOnThread(file: string, ledgerPath: string, upTo: number) {
  const worker = new Worker(BOOT, { workerData: { entry: JOBS_THREAD, file, ledgerPath, upTo } satisfies JobsThreadData });
  const built = new Promise<JobsBuilt>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the rebuild's jobs thread exited (code ${code}) before it was done`)));
  });
  // Awaited only once this thread's own part is done: a failure meanwhile must not go unhandled.
  built.catch(() => undefined);
  return {
    file,
    built,
    async stop() {
      await worker.terminate();
      removeDb(file);
    },
  };
}

/**
 * The jobs thread's rows into the target's empty jobs table, with the same columns and indexes on
 * both sides: SQLite then copies the table's and each index's records as they are, in order (its
 * transfer optimization), instead of building the indexes again. Then the events left over.
 */
function copyJobs(target: Database.Database, file: string, built: JobsBuilt): void {
  target.exec(`ATTACH DATABASE '${file.replaceAll("'", "''")}' AS jobs_part`);
  try {
    const indexes = target.prepare("SELECT sql FROM jobs_part.sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' AND sql IS NOT NULL").pluck().all() as string[];
    target.transaction(() => {
      for (const sql of indexes) target.exec(sql);
      target.exec('INSERT INTO main.jobs SELECT * FROM jobs_part.jobs');
    })();
  } finally {
    target.exec('DETACH DATABASE jobs_part');
  }
  target.transaction(() => replayThrough(target, 'jobs', built.irregular))();
}

/** Applies the events at these ledger positions, in order, with one table's module. */
function replayThrough(target: Database.Database, table: string, positions: number[]): void {
  if (positions.length === 0) return;
  const read = target
    .prepare<[number], EventRow>('SELECT position, stream, revision, type, schema_version, data, recorded_at FROM ledger.events WHERE position = ?')
    .raw(true);
  for (const p of positions) applyModules(target, recorded(read.get(p)!), [table]);
}

/**
 * The keys table: KeyIssued and the keys' own events applied here (few), the job counters from SQL:
 * summed from the jobs' aggregates when this thread made them (`jobsHere`), else counted.
 */
function insertKeys(target: Database.Database, rare: RareEvent[], jobsHere: boolean): void {
  const oneKeyPerJob = jobsHere && !target.prepare('SELECT 1 FROM temp.jagg WHERE id IS NULL OR k IS NOT k_max LIMIT 1').get();
  const counted = target.prepare<{ after: number; key: string | null }, KeyJobs>(KEY_JOBS_COUNTED);
  const jobsOf = new Map((oneKeyPerJob ? target.prepare<[], KeyJobs>(KEY_JOBS_SUMMED).all() : counted.all({ after: 0, key: null })).map((r) => [r.k, r]));
  // identity.ts stamps its updates with the event's recorded_at, not its data's `at`.
  const recordedAt = target.prepare<[number], string>('SELECT recorded_at FROM ledger.events WHERE position = ?').pluck();
  const insert = target.prepare(
    'INSERT INTO main.keys (key_id, partner_id, partner_name, key_hash, status, limit_n, used, held, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  type Key = { issued: RareEvent; status: string; limit: unknown; last: number };
  const keys = new Map<string, Key>();
  const hashes = new Set<unknown>();
  for (const e of rare) {
    if (e.t === 1) {
      // INSERT OR IGNORE: neither the key id nor the (UNIQUE) key hash may be taken already.
      if (keys.has(e.k) || hashes.has(e.v3)) continue;
      hashes.add(e.v3);
      keys.set(e.k, { issued: e, status: 'active', limit: e.v4, last: 0 });
      continue;
    }
    const key = e.t <= 5 ? keys.get(e.k) : undefined;
    if (!key) continue;
    key.last = e.p;
    // A revocation is final.
    if (e.t === 4) key.status = 'revoked';
    else if (e.t === 2 || e.t === 3) key.status = key.status === 'revoked' ? 'revoked' : e.t === 2 ? 'suspended' : 'active';
    else if (e.t === 5) key.limit = e.v1;
  }
  for (const [k, { issued, status, limit, last }] of keys) {
    let jobs = jobsOf.get(k);
    if (jobs && jobs.f < issued.p) jobs = counted.get({ after: issued.p, key: k });
    const changed = Math.max(last, jobs?.last ?? 0);
    const held = jobs ? jobs.queued - jobs.used - jobs.cancelled : 0;
    insert.run(k, issued.v1, issued.v2, issued.v3, status, limit, jobs?.used ?? 0, held, issued.v0, changed ? recordedAt.get(changed) : issued.v0);
  }
}
