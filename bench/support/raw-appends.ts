// The raw-append baseline of bench:api's submissions: the ledger rows a submission writes, with
// their hash-chain rows, in the service's own tables (same columns, same UNIQUE index, the same
// batch writer: events/store/sqlite-batch.ts) with the service's pragmas (WAL, synchronous=FULL).
// No HTTP, no command handling, no projection, no video bytes. Two shapes:
//   flow    mint + upload + submit as three partner requests need them: SpotMinted; SpotUploaded;
//           SpotClaimed + JobQueued, three transactions (each request answered once its rows are
//           durable, so each is its own commit, as a plain server would do it).
//   submit  POST /v1/jobs alone, as issue 22 measured it: SpotClaimed + JobQueued in one
//           transaction per job.
//
// Run as `node raw-appends.ts FILE SECONDS CLIENT START_AT [flow|submit]`: one client, one
// connection, its own stream, transactions back to back from START_AT (epoch ms, so that every
// client runs over the same window) for SECONDS; prints the jobs it completed. bench/api.ts starts
// one such process per concurrent client (SQLite serializes the writers, as it would a plain
// server's).
import { batchWriter } from '../../src/events/store/sqlite-batch.js';
import { CHAIN_DDL } from '../../src/events/store/sqlite-chain.js';
import { EVENTS_DDL, openSqlite } from '../../src/events/store/sqlite.js';
import { canonicalJson } from '../../src/events/chain.js';

const [file, seconds, client, startAt, shape = 'flow'] = process.argv.slice(2);
const db = openSqlite(file!, 60_000);
db.exec(EVENTS_DDL + CHAIN_DDL);
// Sealed, as the service's ledger is from its first start (sqlite-chain.ts): every append is hashed.
db.exec('INSERT OR REPLACE INTO chain_state (id, sealed) VALUES (1, 1)');
const write = batchWriter(db);

const stream = `ledger-key_raw_${client}`;
let revision = -1;
/** One transaction of these events at the stream's head. */
const txn = (events: { type: string; data: object }[]) => {
  const at = new Date().toISOString();
  const [r] = write([{ stream, expected: revision, events: events.map((e) => ({ type: e.type, data: canonicalJson(e.data) })) }], at);
  if (!r || 'conflict' in r) throw new Error(`raw append refused at ${revision}`);
  revision = r.nextRevision;
};

let done = 0;
const wait = Number(startAt ?? 0) - Date.now();
if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
const end = performance.now() + Number(seconds) * 1000;
while (performance.now() < end) {
  const at = new Date().toISOString();
  const handle = `up_${client}_${done}`;
  const jobId = `00000000-0000-4000-8000-${String(done).padStart(12, '0')}`;
  if (shape === 'flow') {
    txn([{ type: 'SpotMinted', data: { at, expiresAt: at, handle } }]);
    txn([{ type: 'SpotUploaded', data: { at, handle, size: 412_345 } }]);
  }
  txn([
    { type: 'SpotClaimed', data: { at, exerciseId: 'squat', handle, jobId, size: 412_345 } },
    { type: 'JobQueued', data: { at, exerciseId: 'squat', handle, jobId } },
  ]);
  done++;
}
db.close();
process.stdout.write(`${done}\n`);
