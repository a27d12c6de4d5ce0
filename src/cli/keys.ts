// `admin keys ...`: issue, list, suspend, reinstate, revoke, set the analysis limit.
import { decideKey, type KeyCommand } from '../commands/keys.js';
import { hashApiKey, newApiKey, newKeyId, newPartnerId } from '../ids.js';
import { keyById, listKeys, usageOf } from '../projections/identity.js';
import type { Service } from '../service.js';
import { printJson, UsageError, type Command, type Context } from './command.js';

function parseLimit(raw: string): number | null {
  if (raw === 'none') return null;
  // Beyond 2^53 - 1 a number is no longer exact: 9007199254740993 would be stored as ...992, and
  // 1e20 would reach partners as a usage.limit no JSON parser reads back as an integer.
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new UsageError(`limit must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER} or "none", got "${raw}"`);
  return Number(raw);
}

/** A name or id shown to partners in GET /v1/identity: not blank, one line, no control characters. */
function text(option: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (!value) throw new UsageError(`--${option} must not be empty`);
  if (/\p{Cc}/u.test(value)) throw new UsageError(`--${option} must not contain control characters (newlines, tabs, ...)`);
  return value;
}

async function keyCommand(svc: Service, command: KeyCommand) {
  await svc.ledger.handle(command.keyId, (s) => decideKey(command, s));
  const row = keyById(svc.readDb(), command.keyId);
  return row && { key_id: row.key_id, partner_id: row.partner_id, status: row.status, usage: usageOf(row) };
}

const statusCommand = (verb: 'suspend' | 'reinstate' | 'revoke', type: 'SuspendKey' | 'ReinstateKey' | 'RevokeKey', summary: string): Command => ({
  usage: `keys ${verb} KEY_ID`,
  summary,
  args: ['KEY_ID'],
  async run({ positionals, service, out }: Context) {
    const svc = await service();
    printJson(out, await keyCommand(svc, { type, keyId: positionals[0]!, now: svc.clock().toISOString() }));
  },
});

export const keys: Record<string, Command> = {
  create: {
    usage: 'keys create --partner-name NAME [--limit N] [--partner-id ID]',
    summary: 'issue a key; prints {"partner_id","partner_name","key_id","api_key"} (the api_key is shown only here)',
    details: 'no --limit is uncapped; --limit 0 permits no analyses',
    options: { 'partner-name': { type: 'string' }, 'partner-id': { type: 'string' }, limit: { type: 'string' } },
    createsData: true,
    async run({ values, service, out }) {
      if (values['partner-name'] === undefined) throw new UsageError('--partner-name is required');
      const partnerName = text('partner-name', values['partner-name'] as string)!;
      const givenPartnerId = text('partner-id', values['partner-id'] as string | undefined);
      if (values.limit === 'none') throw new UsageError('omit --limit for an uncapped key');
      const limit = values.limit === undefined ? null : parseLimit(values.limit as string);
      const svc = await service();
      const apiKey = newApiKey();
      const keyId = newKeyId();
      const partnerId = givenPartnerId ?? newPartnerId();
      const now = svc.clock().toISOString();
      await svc.ledger.handle(keyId, (s) => decideKey({ type: 'IssueKey', keyId, partnerId, partnerName, keyHash: hashApiKey(apiKey), limit, now }, s));
      printJson(out, { partner_id: partnerId, partner_name: partnerName, key_id: keyId, api_key: apiKey });
    },
  },
  list: {
    usage: 'keys list [--status active|suspended|revoked]',
    summary: 'every key with its status and usage, one JSON line each, oldest first',
    options: { status: { type: 'string' } },
    async run({ values, service, out }) {
      const status = values.status as string | undefined;
      if (status !== undefined && !['active', 'suspended', 'revoked'].includes(status)) throw new UsageError(`--status must be active, suspended or revoked, got "${status}"`);
      const svc = await service();
      for (const row of listKeys(svc.readDb())) {
        if (status && row.status !== status) continue;
        printJson(out, { key_id: row.key_id, partner_id: row.partner_id, partner_name: row.partner_name, status: row.status, usage: usageOf(row), held: row.held, created_at: row.created_at });
      }
    },
  },
  suspend: statusCommand('suspend', 'SuspendKey', 'refuse the key (401) until it is reinstated'),
  reinstate: statusCommand('reinstate', 'ReinstateKey', 'accept a suspended key again (a revoked key stays revoked)'),
  revoke: statusCommand('revoke', 'RevokeKey', 'refuse the key for good'),
  'set-limit': {
    usage: 'keys set-limit KEY_ID N|none',
    summary: 'set the analysis limit; none makes the key uncapped, 0 permits no further analyses',
    args: ['KEY_ID', 'N|none'],
    async run({ positionals, service, out }) {
      const limit = parseLimit(positionals[1]!);
      const svc = await service();
      printJson(out, await keyCommand(svc, { type: 'SetLimit', keyId: positionals[0]!, limit, now: svc.clock().toISOString() }));
    },
  },
};
