// The auditor's cross-check: what the identity read model serves (GET /v1/identity) against the
// totals replayed from the ledger.
import { remaining } from '../commands/state.js';
import type { Totals } from './replay.js';

export interface ReadModelKey {
  status: string;
  limit_n: number | null;
  used: number;
  held: number;
}

export interface Difference {
  field: string;
  ledger: unknown;
  readModel: unknown;
}

/** Where the identity read model disagrees with the replayed totals (what GET /v1/identity serves). */
export function compareWithReadModel(totals: Totals, row: ReadModelKey | undefined): Difference[] {
  if (!row) return [{ field: 'key', ledger: totals.status, readModel: 'missing' }];
  const served = { status: row.status, limit: row.limit_n, used: row.used, held: row.held, remaining: remaining({ limit: row.limit_n, used: row.used, held: row.held }) };
  const replayed = { status: totals.status, limit: totals.limit, used: totals.used, held: totals.held, remaining: totals.remaining };
  return (Object.keys(replayed) as (keyof typeof replayed)[])
    .filter((field) => replayed[field] !== served[field])
    .map((field) => ({ field, ledger: replayed[field], readModel: served[field] }));
}
