// The raw-append baseline of bench:api's submissions: the rows one submission writes to the ledger
// (SpotMinted; SpotUploaded; SpotClaimed + JobQueued), in the three transactions the three partner
// requests need (each answered only once its rows are durable, so each is its own commit), into the
// service's own events table (same columns, same UNIQUE index) with the service's pragmas (WAL,
// synchronous=FULL). No HTTP, no hashing, no projection, no video bytes, no JSON canonicalization.
//
// Run as `node raw-appends.ts FILE SECONDS CLIENT START_AT`: one client, one connection, its own
// stream, transactions back to back from START_AT (epoch ms, so that every client runs over the same
// window) for SECONDS; prints the submissions it completed. bench/api.ts starts one such
// process per concurrent client (SQLite serializes the writers, as it would a plain server's), and
// also one alone, and takes whichever did more as the baseline.
import Database from 'better-sqlite3';

const [file, seconds, client, startAt] = process.argv.slice(2);
const db = new Database(file!, { timeout: 60_000 });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT NOT NULL,
  schema_version INTEGER NOT NULL, data TEXT NOT NULL, recorded_at TEXT NOT NULL, UNIQUE (stream, revision))`);
const insert = db.prepare('INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES (?, ?, ?, 3, ?, ?)');
const txn = db.transaction((rows: [string, string][]) => {
  const at = new Date().toISOString();
  for (const [type, data] of rows) insert.run(stream, revision++, type, data, at);
}).immediate;

const stream = `ledger-key_raw_${client}`;
let revision = 0;
let done = 0;
const wait = Number(startAt ?? 0) - Date.now();
if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
const end = performance.now() + Number(seconds) * 1000;
while (performance.now() < end) {
  const at = new Date().toISOString();
  const handle = `up_${client}_${done}`;
  const jobId = `00000000-0000-4000-8000-${String(done).padStart(12, '0')}`;
  txn([['SpotMinted', JSON.stringify({ at, expiresAt: at, handle })]]);
  txn([['SpotUploaded', JSON.stringify({ at, handle, size: 412_345 })]]);
  txn([
    ['SpotClaimed', JSON.stringify({ at, exerciseId: 'squat', handle, jobId, size: 412_345 })],
    ['JobQueued', JSON.stringify({ at, exerciseId: 'squat', handle, jobId })],
  ]);
  done++;
}
db.close();
process.stdout.write(`${done}\n`);
