// Tamper evidence for operators and auditors: `ledger digest` (what an auditor keeps), `ledger
// chain` (the one-time hashing of a ledger written before the chain existed) and `audit verify`.
import { existsSync, readFileSync } from 'node:fs';
import { checkChain, type ChainReport } from '../audit/chain.js';
import { parseDigest } from '../events/chain.js';
import { ledgerStream } from '../events/ledger.js';
import { SqliteEventStore } from '../events/store/sqlite.js';
import { OperatorError } from '../commands/errors.js';
import { paths } from '../service.js';
import { printJson, UsageError, write, type Command } from './command.js';
import { progressReporter } from './progress.js';

export const ledger: Record<string, Command> = {
  digest: {
    usage: 'ledger digest',
    summary: 'print {"position","root","at"}: the running root of the hash chain, for an auditor to keep',
    details: [
      'Keep the line somewhere the operator cannot write. Later, `audit verify --digest FILE` (or',
      'scripts/verify-ledger-export.mjs on an export) proves that nothing at or before that position',
      'changed, however many events were appended since. README "Tamper evidence" defines the hashes.',
    ].join('\n'),
    async run({ service, out }) {
      const svc = await service();
      const d = await svc.store.digest();
      printJson(out, { position: d.position, root: d.root, at: svc.clock().toISOString() });
    },
  },
  chain: {
    usage: 'ledger chain',
    summary: 'hash the events of a ledger written before the hash chain existed (once; resumable)',
    details: [
      'Writes only the side table event_hashes, never an event, a batch per short transaction, so it',
      'runs while the API serves and an interrupted run continues where it stopped. Every process',
      'also does it when it opens the ledger; this command shows progress. SQLite ledger only.',
    ].join('\n'),
    async run({ config, out, err }) {
      const cfg = config();
      if (cfg.eventStore === 'kurrentdb') throw new OperatorError('KurrentDB events carry their hash in their metadata from the moment they are appended: nothing to do');
      if (cfg.eventStore === 'postgres') throw new OperatorError('PostgreSQL events are hashed (and the running root stored) in the transaction that appends them: nothing to do');
      const file = paths(cfg.dataDir).ledger;
      if (!existsSync(file)) throw new OperatorError(`no ledger at ${file} (is DATA_DIR right?)`);
      const store = new SqliteEventStore(file, { busyTimeoutMs: cfg.storeBusyTimeoutMs });
      try {
        const started = Date.now();
        const progress = progressReporter(err, 'chain');
        const hashed = await store.completeChain((done, remaining) => progress.update({ done, total: done + remaining, elapsedMs: Date.now() - started }));
        progress.done();
        printJson(out, { hashed, ...(await store.digest()) });
      } finally {
        await store.close();
      }
    },
  },
};

function failureLine(f: ChainReport['failures'][number]): string {
  return `${f.stream} revision ${f.revision} (position ${f.position}): ${f.reason}`;
}

/**
 * The digest in a file: the whole file when it is one JSON value (a backup's pretty-printed
 * backup.json, which records its position and root), else its last line (digests an auditor
 * appended, one `ledger digest` line each).
 */
function digestText(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return text.trim().split('\n').pop() ?? '';
  }
}

export const verifyCommand: Command = {
  usage: 'audit verify [KEY_ID] [--digest FILE] [--format text|json]',
  summary: 'recompute the hash chains of the ledger (or of one key) and check the stored hashes and roots',
  details: [
    'Every event is hashed again from what is stored now and compared with the hash stored when it was',
    'appended; the running root is recomputed over all streams. With --digest FILE (a line printed by',
    '`ledger digest`, kept by the auditor, or a backup\'s backup.json), also proves that nothing at or',
    'before its position changed.',
    'Exit 0 when everything verifies, 1 naming the first stream and revision that does not.',
  ].join('\n'),
  args: ['KEY_ID?'],
  options: { digest: { type: 'string' }, format: { type: 'string' } },
  async run({ values, positionals, service, out, err }) {
    const format = (values.format as string | undefined) ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`);
    let digest;
    if (values.digest !== undefined) {
      const file = values.digest as string;
      if (!existsSync(file)) throw new UsageError(`--digest: no file ${file}`);
      try {
        digest = parseDigest(digestText(readFileSync(file, 'utf8')));
      } catch (e) {
        throw new UsageError(`--digest ${file}: ${(e as Error).message}`);
      }
    }
    const keyId = positionals[0];
    const stream = keyId === undefined ? undefined : ledgerStream(keyId);
    const svc = await service();
    const report = await checkChain(svc.store.checkItems(digest ? undefined : stream), { stream, digest });
    if (stream && report.events === 0 && report.failureCount === 0) throw new OperatorError(`no key ${keyId}`);
    if (format === 'json') printJson(out, report);
    else {
      const scope = stream && !digest ? `${stream}: ${report.events} events` : `${report.events} events in ${report.streams} streams`;
      const lines = report.ok
        ? [`ledger verified: ${scope} up to position ${report.position}, root ${report.root}`]
        : [`ledger does NOT verify: ${failureLine(report.failures[0]!)}`, ...report.failures.slice(1).map((f) => `  also ${failureLine(f)}`)];
      if (report.failureCount > report.failures.length) lines.push(`  ... and ${report.failureCount - report.failures.length} more`);
      if (report.digest) lines.push(`digest at position ${report.digest.position}: ${report.digest.matches ? 'matches' : 'does NOT match'}`);
      await write(out, `${lines.join('\n')}\n`);
    }
    if (!report.ok) err.write(`error: ${failureLine(report.failures[0]!)}\n`);
    return report.ok ? 0 : 1;
  },
};
