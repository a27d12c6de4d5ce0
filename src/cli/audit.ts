// `admin audit KEY_ID` and `admin events export KEY_ID`: the auditor's commands.
import { compareWithReadModel, type Difference } from '../audit/compare.js';
import { audit, type AuditReport } from '../audit/replay.js';
import { summaryLines, toCsv, toJson, toTable } from '../audit/format.js';
import { OperatorError } from '../commands/errors.js';
import { ledgerStream } from '../events/ledger.js';
import { SqliteEventStore } from '../events/store/sqlite.js';
import { keyById } from '../projections/identity.js';
import type { Service } from '../service.js';
import { UsageError, write, type Command } from './command.js';

const FORMATS = ['table', 'json', 'csv'] as const;

async function replayKey(svc: Service, keyId: string, until?: Date): Promise<AuditReport> {
  const events = await svc.store.readStream(ledgerStream(keyId));
  if (events.length === 0) throw new OperatorError(`no key ${keyId}`);
  return audit(keyId, events, { until });
}

export const auditCommand: Command = {
  usage: 'audit KEY_ID [--format table|json|csv] [--until ISO_TIME]',
  summary: "replay the key's ledger: every budget movement with the running limit/used/held/remaining",
  details: [
    'Checks every budget invariant as it goes (no over-commit on acceptance, terminal states never',
    'change, used = completed + failed, held = queued + processing, ...) and compares the totals with',
    'the identity read model (what GET /v1/identity serves). --until replays the events recorded at',
    'or before ISO_TIME (usage as it stood then) and skips the comparison.',
    'Exit 0 when everything agrees, 1 on a violated invariant or a disagreement (with a diff).',
  ].join('\n'),
  args: ['KEY_ID'],
  options: { format: { type: 'string' }, until: { type: 'string' } },
  async run({ values, positionals, service, out, err }) {
    const keyId = positionals[0]!;
    const format = (values.format ?? 'table') as (typeof FORMATS)[number];
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${format}"`);
    let until: Date | undefined;
    if (values.until !== undefined) {
      until = new Date(values.until as string);
      if (!/^\d{4}-\d{2}-\d{2}/.test(values.until as string) || Number.isNaN(until.getTime())) throw new UsageError(`--until must be an ISO 8601 time, got "${values.until}"`);
    }
    const svc = await service();
    let report = await replayKey(svc, keyId, until);
    let differences: Difference[] | undefined;
    if (!until) {
      differences = compareWithReadModel(report.totals, keyById(svc.readDb(), keyId));
      if (differences.length > 0) {
        // A writer may have appended between our read of the ledger and of the read model: once more.
        await svc.projector.catchUp();
        report = await replayKey(svc, keyId);
        differences = compareWithReadModel(report.totals, keyById(svc.readDb(), keyId));
      }
    }
    const header = { keyId, partnerName: keyById(svc.readDb(), keyId)?.partner_name ?? '?', until: until?.toISOString(), differences };
    if (format === 'json') await write(out, toJson(report, header));
    else if (format === 'csv') {
      await write(out, toCsv(report));
      err.write(`${summaryLines(report, header).join('\n')}\n`);
    } else await write(out, toTable(report, header));
    return report.violations.length > 0 || (differences?.length ?? 0) > 0 ? 1 : 0;
  },
};

const PAGE = 1_000;

export const events: Record<string, Command> = {
  export: {
    usage: 'events export KEY_ID [--upcast]',
    summary: "stream the key's raw events as NDJSON, oldest first, for an outside auditor",
    details: [
      'Each line: {"position","revision","type","schemaVersion","recordedAt","data"} exactly as stored',
      '(old schema versions included); --upcast lifts each event to the current schema first.',
    ].join('\n'),
    args: ['KEY_ID'],
    options: { upcast: { type: 'boolean' } },
    async run({ values, positionals, service, out }) {
      const keyId = positionals[0]!;
      const svc = await service();
      const stream = ledgerStream(keyId);
      let count = 0;
      if (svc.store instanceof SqliteEventStore && !values.upcast) {
        // Paged, so a key with a million events streams in flat memory.
        const page = svc.store.db.prepare<[string, number, number], { position: number; revision: number; type: string; schema_version: number; recorded_at: string; data: string }>(
          'SELECT position, revision, type, schema_version, recorded_at, data FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
        );
        for (let from = 0; ; from += PAGE) {
          const rows = page.all(stream, from, PAGE);
          for (const r of rows) {
            await write(out, `{"position":${r.position},"revision":${r.revision},"type":${JSON.stringify(r.type)},"schemaVersion":${r.schema_version},"recordedAt":${JSON.stringify(r.recorded_at)},"data":${r.data}}\n`);
          }
          count += rows.length;
          if (rows.length < PAGE) break;
        }
      } else {
        for (const e of await svc.store.readStream(stream)) {
          const { position, revision, type, schemaVersion, recordedAt, data } = e;
          await write(out, `${JSON.stringify({ position, revision, type, schemaVersion, recordedAt, data })}\n`);
          count += 1;
        }
      }
      if (count === 0) throw new OperatorError(`no key ${keyId}`);
    },
  },
};
