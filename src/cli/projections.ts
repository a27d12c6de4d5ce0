// `admin projections rebuild|verify`: rebuild the read models from the ledger while the API serves,
// or check that the live ones are what a replay gives.
import { existsSync } from 'node:fs';
import { OperatorError } from '../commands/errors.js';
import { makeDirs } from '../private-files.js';
import { rebuild } from '../projections/rebuild.js';
import { verify } from '../projections/verify.js';
import { openEventStore, paths } from '../service.js';
import { rebuildFromStore, type FencedStore } from '../projections/rebuild-from-store.js';
import type { EventStore } from '../events/store/port.js';
import type { Config } from '../config.js';
import { printJson, UsageError, write, type Command } from './command.js';
import { progressReporter } from './progress.js';

function sqliteFiles(config: Config) {
  // KurrentDB nodes keep their read models in SQLite too, but replay from the server, not a file.
  if (config.eventStore === 'kurrentdb') throw new OperatorError('projections commands read the SQLite or PostgreSQL ledger; EVENT_STORE=kurrentdb is not supported yet');
  const files = paths(config.dataDir);
  if (!existsSync(files.ledger)) throw new OperatorError(`no ledger at ${files.ledger} (is DATA_DIR right?)`);
  return { ledgerPath: files.ledger, readModelsPath: files.readModels, busyTimeoutMs: config.storeBusyTimeoutMs };
}

/**
 * Runs `fn` on this node's files and, with EVENT_STORE=postgres, the server ledger (each node
 * rebuilds and verifies its own read models from it); with SQLite, `store` is undefined.
 */
interface Files {
  ledgerPath?: string;
  readModelsPath: string;
  busyTimeoutMs: number;
}

async function withServerLedger<T>(config: Config, fn: (store: EventStore | undefined, files: Files) => Promise<T>): Promise<T> {
  if (config.eventStore !== 'postgres') return fn(undefined, sqliteFiles(config));
  const files: Files = { readModelsPath: paths(config.dataDir).readModels, busyTimeoutMs: config.storeBusyTimeoutMs };
  makeDirs(config.dataDir, 'DATA_DIR');
  const store = await openEventStore(config);
  try {
    return await fn(store, files);
  } finally {
    await store.close();
  }
}

export const projections: Record<string, Command> = {
  rebuild: {
    usage: 'projections rebuild',
    summary: 'replay every event into a fresh read-model file and swap it in; the API keeps serving',
    details: [
      'Shows a progress bar on a terminal (plain progress lines otherwise) on stderr. Events appended',
      'meanwhile are caught up before the swap, which happens under the ledger write lock (writers',
      'wait milliseconds, readers not at all). Running servers reopen the new file on their next read.',
      'Prints {"file","position","events","elapsed_ms","events_per_s","fence_ms"} on stdout.',
    ].join('\n'),
    async run({ config, out, err }) {
      const progress = progressReporter(err, 'rebuild');
      const report = await withServerLedger(config(), (store, files) =>
        store ? rebuildFromStore({ store: store as FencedStore, readModelsPath: files.readModelsPath, busyTimeoutMs: files.busyTimeoutMs, onProgress: progress.update }) : rebuild({ ...files, ledgerPath: files.ledgerPath!, onProgress: progress.update }));
      progress.done();
      const perSecond = report.elapsedMs > 0 ? Math.round((report.events * 1000) / report.elapsedMs) : report.events;
      printJson(out, { file: report.file, position: report.position, events: report.events, elapsed_ms: report.elapsedMs, events_per_s: perSecond, fence_ms: report.fenceMs });
    },
  },
  verify: {
    usage: 'projections verify [--format text|json]',
    summary: 'compare the live read models with a fresh replay of the ledger, row by row',
    details: 'Every column of every table, at the live file\'s checkpoint. Exit 0 when identical, 1 on any difference.',
    options: { format: { type: 'string' } },
    async run({ values, config, out }) {
      const format = (values.format as string | undefined) ?? 'text';
      if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`);
      const report = await withServerLedger(config(), (store, files) => {
        if (!existsSync(files.readModelsPath)) throw new OperatorError(`no read models at ${files.readModelsPath}; run \`projections rebuild\``);
        return verify(store ? { ...files, store } : files);
      });
      const same = report.differenceCount === 0 && report.schema.length === 0;
      if (format === 'json') printJson(out, { identical: same, ...report });
      else {
        const lines = [`verified at position ${report.position}: ${Object.entries(report.rows).map(([t, n]) => `${n} ${t}`).join(', ')}`];
        for (const s of report.schema) lines.push(`schema: ${s}`);
        for (const d of report.differences) {
          if (d.kind === 'changed') {
            const cols = Object.entries(d.columns!).map(([c, [live, replayed]]) => `${c}: live ${JSON.stringify(live)}, replay ${JSON.stringify(replayed)}`);
            lines.push(`${d.table} ${d.key}: ${cols.join('; ')}`);
          } else lines.push(`${d.table} ${d.key}: ${d.kind === 'missing' ? 'missing from the live file' : 'in the live file but not in the replay'}`);
        }
        if (report.differenceCount > report.differences.length) lines.push(`... and ${report.differenceCount - report.differences.length} more`);
        lines.push(same ? 'read models: identical to a replay' : `read models: ${report.differenceCount} rows differ${report.schema.length ? `, ${report.schema.length} schema differences` : ''}; run \`projections rebuild\``);
        await write(out, `${lines.join('\n')}\n`);
      }
      return same ? 0 : 1;
    },
  },
};
