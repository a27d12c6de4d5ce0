// `admin migrate --to postgres|kurrentdb`: copies the SQLite ledger of DATA_DIR into a server
// ledger, for the switch to the scale-out deployment (docs/scale-out.md). Resumable.
import { existsSync } from 'node:fs';
import { OperatorError } from '../commands/errors.js';
import { postgresUrl, ConfigError } from '../config.js';
import { paths } from '../service.js';
import { printJson, UsageError, type Command } from './command.js';
import { progressReporter } from './progress.js';

export const migrateCommand: Command = {
  usage: 'migrate --to postgres|kurrentdb',
  summary: "copy DATA_DIR's SQLite ledger into PostgreSQL (POSTGRES_URL) or KurrentDB (KURRENTDB_URL); resumable",
  details: [
    'Stop every process first. The same events in the same order: with --to postgres every event gets',
    'the same chain hash and the copy the same running root, checked at the end (exit 1 if not). A',
    'rerun goes on where an interrupted one stopped, after checking that what is there is a prefix of',
    'this ledger. Then start the processes with EVENT_STORE set to the target; each node builds its',
    'read models from the new ledger on first start. Prints {"ledger","to","events","copied",...}.',
  ].join('\n'),
  options: { to: { type: 'string' } },
  async run({ values, config, out, err }) {
    const to = values.to as string | undefined;
    if (to !== 'postgres' && to !== 'kurrentdb') throw new UsageError(`--to must be postgres or kurrentdb, got ${to === undefined ? 'nothing' : `"${to}"`}`);
    const cfg = config();
    const ledger = paths(cfg.dataDir).ledger;
    if (!existsSync(ledger)) throw new OperatorError(`no ledger at ${ledger} (is DATA_DIR right?)`);
    const started = Date.now();
    const progress = progressReporter(err, 'migrate');
    const onProgress = (done: number, total: number) => progress.update({ done, total, elapsedMs: Date.now() - started });
    if (to === 'postgres') {
      try {
        postgresUrl(cfg.postgres.url);
      } catch (e) {
        if (e instanceof ConfigError) throw new UsageError(e.message);
        throw e;
      }
      const { PostgresEventStore } = await import('../events/store/postgres.js');
      const { migrateSqliteToPostgres } = await import('../events/store/migrate-postgres.js');
      const target = await PostgresEventStore.open(cfg.postgres.url!, { schema: cfg.postgres.schema, busyTimeoutMs: cfg.storeBusyTimeoutMs });
      try {
        const report = await migrateSqliteToPostgres(ledger, target, onProgress);
        progress.done();
        printJson(out, { ledger, to, schema: cfg.postgres.schema, ...report });
      } catch (e) {
        throw new OperatorError((e as Error).message);
      } finally {
        await target.close();
      }
      return;
    }
    if (!cfg.kurrentdbUrl) throw new UsageError('KURRENTDB_URL is required for --to kurrentdb');
    const { KurrentDbEventStore } = await import('../events/store/kurrentdb.js');
    const { migrateSqliteToKurrentDb } = await import('../events/store/migrate.js');
    const target = new KurrentDbEventStore(cfg.kurrentdbUrl);
    try {
      const report = await migrateSqliteToKurrentDb(ledger, target, onProgress);
      progress.done();
      printJson(out, { ledger, to, ...report });
    } finally {
      await target.close();
    }
  },
};
