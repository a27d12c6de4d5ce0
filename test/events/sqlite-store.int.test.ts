// The event-store contract on the embedded default: a SQLite file (two connections in the race test).
import { after } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { eventStoreContract } from './store.contract.js';
import { removeDir } from '../support/remove-dir.js';

const dir = mkdtempSync(join(tmpdir(), 'rc-store-'));
after(() => removeDir(dir));

eventStoreContract('sqlite', { open: async () => new SqliteEventStore(join(dir, 'ledger.db')) });

// The API server's configuration: commits on the writer thread (events/store/sqlite.ts).
eventStoreContract('sqlite (writer thread)', { open: async () => new SqliteEventStore(join(dir, 'ledger-threaded.db'), { writer: 'thread' }) });
