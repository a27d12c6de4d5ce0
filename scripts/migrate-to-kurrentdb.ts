// Copies DATA_DIR/ledger.db into the KurrentDB at KURRENTDB_URL (docs/scale-out.md). Stop every
// process first. Usage:
//   DATA_DIR=./data KURRENTDB_URL='kurrentdb://host:2113?tls=false' node --import tsx scripts/migrate-to-kurrentdb.ts
// Prints one JSON line with the counts; a rerun copies only what is missing.
import { join } from 'node:path';
import { KurrentDbEventStore } from '../src/events/store/kurrentdb.js';
import { migrateSqliteToKurrentDb } from '../src/events/store/migrate.js';

const url = process.env.KURRENTDB_URL;
if (!url) {
  process.stderr.write('error: KURRENTDB_URL is required\n');
  process.exit(2);
}
const ledger = join(process.env.DATA_DIR || './data', 'ledger.db');
const store = new KurrentDbEventStore(url);
try {
  let last = 0;
  const report = await migrateSqliteToKurrentDb(ledger, store, (done, total) => {
    if (Date.now() - last < 1000 && done < total) return;
    last = Date.now();
    process.stderr.write(`copied ${done}/${total} events\n`);
  });
  process.stdout.write(`${JSON.stringify({ ledger, ...report })}\n`);
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await store.close();
}
