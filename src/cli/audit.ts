// `admin audit KEY_ID` and `admin events export KEY_ID`: the auditor's commands.
import { compareWithReadModel, type Difference } from '../audit/compare.js';
import { audit, type AuditReport } from '../audit/replay.js';
import { summaryLines, toCsv, toJson, toTable } from '../audit/format.js';
import { OperatorError } from '../commands/errors.js';
import { ledgerStream } from '../events/ledger.js';
import { upcast } from '../events/upcasters.js';
import { keyById } from '../projections/identity.js';
import type { Service } from '../service.js';
import { UsageError, write, type Command } from './command.js';

const FORMATS = ['table', 'json', 'csv'] as const;

/**
 * --until: an ISO 8601 date, or a date-time with or without its offset. One without an offset is
 * read as UTC, as a date alone is: JavaScript would read it in this machine's zone, so
 * "2026-11-28T17:00" meant 22:00Z on a New York laptop and 17:00Z on a server.
 */
export function parseUntil(text: string): Date {
  const iso = /^(\d{4}-\d{2}-\d{2})(?:[Tt](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|z|[+-]\d{2}:\d{2})?)?$/.exec(text);
  const until = iso === null ? new Date(NaN) : new Date(iso[2] === undefined ? iso[1]! : `${iso[1]}T${iso[2]}${iso[3] ?? 'Z'}`);
  if (Number.isNaN(until.getTime())) {
    throw new UsageError(`--until must be an ISO 8601 date or date-time, like 2026-11-28, 2026-11-28T17:00:00Z or 2026-11-28T18:00:00+01:00 (without an offset it is read as UTC), got "${text}"`);
  }
  return until;
}

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
    'or before ISO_TIME (usage as it stood then) and skips the comparison. ISO_TIME is a date or a',
    'date-time: 2026-11-28, 2026-11-28T17:00:00Z, 2026-11-28T18:00:00+01:00; without an offset, UTC.',
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
      until = parseUntil(values.until as string);
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

export const events: Record<string, Command> = {
  export: {
    usage: 'events export KEY_ID|--all [--upcast]',
    summary: "stream the key's raw events (or the whole ledger's) as NDJSON, oldest first, for an outside auditor",
    details: [
      'Each line: {"position","stream","revision","type","schemaVersion","recordedAt","data","hash","root","head"}',
      'exactly as stored (old schema versions included), with the event\'s chain hash, the running root',
      'after it (null where the store keeps none) and the last revision appended to its stream (so a',
      'truncated stream shows). scripts/verify-ledger-export.mjs checks an export',
      'offline; with --all and a digest it proves the prefix. --upcast lifts each event to the current',
      'schema first (the hashes stay those of the stored form, so such an export does not verify).',
    ].join('\n'),
    args: ['KEY_ID?'],
    options: { upcast: { type: 'boolean' }, all: { type: 'boolean' } },
    async run({ values, positionals, service, out }) {
      const keyId = positionals[0];
      if (keyId === undefined && !values.all) throw new UsageError('missing KEY_ID (or --all for the whole ledger)');
      if (keyId !== undefined && values.all) throw new UsageError('give KEY_ID or --all, not both');
      const svc = await service();
      const stream = keyId === undefined ? undefined : ledgerStream(keyId);
      // First pass: each stream's head as appended (hash rows count, so events deleted from the end
      // of a stream behind the service's back show as a stream shorter than its head), and where the
      // export stops, so events appended meanwhile cannot make it disagree with itself.
      const heads = new Map<string, number>();
      let upTo = 0;
      for await (const { position, event, stored } of svc.store.checkItems(stream)) {
        const name = event?.stream ?? stored!.stream;
        heads.set(name, Math.max(heads.get(name) ?? -1, event?.revision ?? -1, stored?.revision ?? -1));
        upTo = position;
      }
      let count = 0;
      // Paged by the store, so a ledger of millions of events streams in flat memory.
      for await (const { position, event: e, stored } of svc.store.checkItems(stream)) {
        if (position > upTo) break;
        if (!e) continue;
        let { schemaVersion, data } = e;
        if (values.upcast) {
          const lifted = upcast({ type: e.type, data: JSON.parse(data), schemaVersion });
          [schemaVersion, data] = [lifted.schemaVersion, JSON.stringify(lifted.data)];
        }
        const hex = (b: Buffer | undefined) => (b ? `"${b.toString('hex')}"` : 'null');
        await write(out, `{"position":${position},"stream":${JSON.stringify(e.stream)},"revision":${e.revision},"type":${JSON.stringify(e.type)},"schemaVersion":${schemaVersion},"recordedAt":${JSON.stringify(e.recordedAt)},"data":${data},"hash":${hex(stored?.hash)},"root":${hex(stored?.root)},"head":${heads.get(e.stream)}}\n`);
        count += 1;
      }
      if (count === 0 && keyId !== undefined) throw new OperatorError(`no key ${keyId}`);
    },
  },
};
