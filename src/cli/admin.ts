// `npm run -s admin -- ...`: operator commands. Works while the server runs: it appends to the same
// ledger and brings the same read models up to date. Prints one JSON line per result.
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../boot.js';
import { cancelJob } from '../commands/partner.js';
import { decideKey, type KeyCommand } from '../commands/keys.js';
import { DomainError, OperatorError } from '../commands/errors.js';
import { hashApiKey, newApiKey, newKeyId, newPartnerId } from '../ids.js';
import { keyById, listKeys, usageOf } from '../projections/identity.js';
import { jobById, listJobs, type JobStatus } from '../projections/jobs.js';
import { openService, type Service } from '../service.js';

class UsageError extends Error {}

const HELP = `usage: npm run -s admin -- <command>

  keys create --partner-name NAME [--limit N] [--partner-id ID]
                                  issue a key; no --limit is uncapped, 0 permits no analyses
  keys list                       every key with its status and usage
  keys suspend KEY_ID             refuse the key until reinstated
  keys reinstate KEY_ID           accept a suspended key again
  keys revoke KEY_ID              refuse the key for good
  keys set-limit KEY_ID N|none    set the analysis limit (none = uncapped)
  jobs cancel JOB_ID              cancel any queued or processing job (returns its budget unit)
  jobs list --key KEY_ID [--status S]
  jobs show JOB_ID
`;

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);

function parseLimit(raw: string | undefined): number | null {
  if (raw === undefined || raw === 'none') return null;
  if (!/^\d+$/.test(raw)) throw new UsageError(`limit must be a whole number or "none", got "${raw}"`);
  return Number(raw);
}

function one(positionals: string[], what: string): string {
  const [value, extra] = positionals;
  if (!value || extra !== undefined) throw new UsageError(`expected exactly one ${what}`);
  return value;
}

async function keyCommand(svc: Service, command: KeyCommand) {
  await svc.ledger.handle(command.keyId, (s) => decideKey(command, s));
  const row = keyById(svc.readDb(), command.keyId);
  return row && { key_id: row.key_id, partner_id: row.partner_id, status: row.status, usage: usageOf(row) };
}

function presentJob(id: string, svc: Service) {
  const row = jobById(svc.readDb(), id);
  if (!row) throw new OperatorError(`no job ${id}`);
  return { ...row, result: row.result ? JSON.parse(row.result) : null };
}

async function run(svc: Service, argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv;
  const now = svc.clock().toISOString();
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { 'partner-name': { type: 'string' }, 'partner-id': { type: 'string' }, limit: { type: 'string' }, key: { type: 'string' }, status: { type: 'string' } },
  });
  switch (`${group} ${action}`) {
    case 'keys create': {
      const partnerName = values['partner-name']?.trim();
      if (!partnerName) throw new UsageError('--partner-name is required');
      if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
      const limit = values.limit === undefined ? null : parseLimit(values.limit);
      if (values.limit === 'none') throw new UsageError('omit --limit for an uncapped key');
      const apiKey = newApiKey();
      const keyId = newKeyId();
      const partnerId = values['partner-id'] ?? newPartnerId();
      await svc.ledger.handle(keyId, (s) =>
        decideKey({ type: 'IssueKey', keyId, partnerId, partnerName, keyHash: hashApiKey(apiKey), limit, now }, s),
      );
      return print({ partner_id: partnerId, partner_name: partnerName, key_id: keyId, api_key: apiKey });
    }
    case 'keys list':
      for (const row of listKeys(svc.readDb())) {
        print({ key_id: row.key_id, partner_id: row.partner_id, partner_name: row.partner_name, status: row.status, usage: usageOf(row), held: row.held, created_at: row.created_at });
      }
      return;
    case 'keys suspend':
      return print(await keyCommand(svc, { type: 'SuspendKey', keyId: one(positionals, 'KEY_ID'), now }));
    case 'keys reinstate':
      return print(await keyCommand(svc, { type: 'ReinstateKey', keyId: one(positionals, 'KEY_ID'), now }));
    case 'keys revoke':
      return print(await keyCommand(svc, { type: 'RevokeKey', keyId: one(positionals, 'KEY_ID'), now }));
    case 'keys set-limit': {
      const [keyId, raw, extra] = positionals;
      if (!keyId || raw === undefined || extra !== undefined) throw new UsageError('usage: keys set-limit KEY_ID N|none');
      return print(await keyCommand(svc, { type: 'SetLimit', keyId, limit: parseLimit(raw), now }));
    }
    case 'jobs cancel': {
      const jobId = one(positionals, 'JOB_ID');
      try {
        return print(await cancelJob(svc, jobId, 'operator'));
      } catch (err) {
        if (err instanceof DomainError) throw new OperatorError(`cannot cancel job ${jobId}: ${err.code} (${err.message})`);
        throw err;
      }
    }
    case 'jobs list': {
      if (!values.key) throw new UsageError('--key KEY_ID is required');
      const rows = listJobs(svc.readDb(), { keyId: values.key, status: values.status as JobStatus | undefined, limit: 1_000_000 });
      for (const r of rows) print({ job_id: r.job_id, status: r.status, exercise_id: r.exercise_id, created_at: r.created_at, updated_at: r.updated_at });
      return;
    }
    case 'jobs show':
      return print(presentJob(one(positionals, 'JOB_ID'), svc));
    default:
      throw new UsageError(group ? `unknown command: ${[group, action].filter(Boolean).join(' ')}` : 'no command given');
  }
}

const argv = process.argv.slice(2);
if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(HELP);
  process.exit(argv.length === 0 ? 2 : 0);
}
const svc = await openService(loadConfigOrExit());
try {
  await run(svc, argv);
  await svc.close();
} catch (err) {
  await svc.close().catch(() => undefined);
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`error: ${(err as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
  if (err instanceof OperatorError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
