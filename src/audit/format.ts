// How an audit report is printed: a table for a person, CSV for a spreadsheet, JSON for a program.
import type { Difference } from './compare.js';
import type { AuditReport, Movement } from './replay.js';

export interface AuditHeader {
  keyId: string;
  partnerName: string;
  until?: string;
  /** Undefined when the comparison was skipped (--until). */
  differences?: Difference[];
}

const num = (v: number | null) => (v === null ? 'none' : String(v));

const COLUMNS: [string, (m: Movement) => string][] = [
  ['time', (m) => m.at],
  ['position', (m) => String(m.position)],
  ['movement', (m) => m.movement],
  ['job_id', (m) => m.jobId ?? ''],
  ['limit', (m) => num(m.limit)],
  ['used', (m) => String(m.used)],
  ['held', (m) => String(m.held)],
  ['remaining', (m) => num(m.remaining)],
  ['note', (m) => m.note],
];

export function toJson(report: AuditReport, h: AuditHeader): string {
  const readModel = h.differences === undefined ? { compared: false } : { compared: true, agrees: h.differences.length === 0, differences: h.differences };
  return `${JSON.stringify({ key_id: h.keyId, partner_name: h.partnerName, until: h.until ?? null, ...report, read_model: readModel }, null, 2)}\n`;
}

const csvCell = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export function toCsv(report: AuditReport): string {
  const lines = [COLUMNS.map(([name]) => name).join(',')];
  for (const m of report.movements) lines.push(COLUMNS.map(([, get]) => csvCell(get(m))).join(','));
  return `${lines.join('\n')}\n`;
}

export function toTable(report: AuditReport, h: AuditHeader): string {
  const rows = [COLUMNS.map(([name]) => name.toUpperCase()), ...report.movements.map((m) => COLUMNS.map(([, get]) => get(m)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const table = rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
  const t = report.totals;
  const jobs = Object.entries(t.jobs).map(([status, n]) => `${n} ${status}`).join(', ');
  const out = [
    `audit of key ${h.keyId} (${h.partnerName}): ${report.events} events${h.until ? `, as it stood at ${h.until}` : ''}`,
    '',
    ...table,
    '',
    `totals: status ${t.status}, limit ${num(t.limit)}, used ${t.used}, held ${t.held}, remaining ${num(t.remaining)} (jobs: ${jobs})`,
    ...summaryLines(report, h),
  ];
  return `${out.join('\n')}\n`;
}

/** The verdict lines, also printed to stderr under CSV so the verdict is never lost. */
export function summaryLines(report: AuditReport, h: AuditHeader): string[] {
  const lines: string[] = [];
  if (report.violations.length === 0) lines.push('invariants: all hold');
  else {
    lines.push(`invariants: ${report.violations.length} violated`);
    for (const v of report.violations) lines.push(`  [${v.rule}] position ${v.position} (${v.at}): ${v.message}`);
  }
  if (h.differences === undefined) lines.push('read model: not compared (--until)');
  else if (h.differences.length === 0) lines.push('read model: agrees with the ledger');
  else {
    lines.push('read model: DISAGREES with the ledger');
    const w = Math.max(5, ...h.differences.map((d) => d.field.length));
    lines.push(`  ${'field'.padEnd(w)}  ${'ledger'.padEnd(10)}  read model`);
    for (const d of h.differences) lines.push(`  ${d.field.padEnd(w)}  ${String(d.ledger).padEnd(10)}  ${String(d.readModel)}`);
  }
  return lines;
}
