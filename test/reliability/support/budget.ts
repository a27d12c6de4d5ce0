// Budgets of the reliability tests: short under `npm test`, long under `npm run test:reliability`
// (RELIABILITY=long). Each test file reports what it exercised; the runner sums the reports.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export const LONG = process.env.RELIABILITY === 'long';

/** The short budget by default, the long one under RELIABILITY=long. */
export const budget = (short: number, long: number): number => (LONG ? long : short);

export interface Counts {
  sequences?: number;
  steps?: number;
  kills?: number;
  badInputs?: number;
  lost?: number;
  violations?: number;
}

/** Tallies for one test file; written where the runner asked (RELIABILITY_COUNTS_DIR), else dropped. */
export function tally() {
  const counts: Required<Counts> = { sequences: 0, steps: 0, kills: 0, badInputs: 0, lost: 0, violations: 0 };
  const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  return {
    counts,
    add(more: Counts) {
      for (const [k, v] of Object.entries(more) as [keyof Counts, number][]) counts[k] += v;
      flush();
    },
  };
  function flush() {
    const dir = process.env.RELIABILITY_COUNTS_DIR;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${id}.json`), JSON.stringify(counts));
  }
}

/** fast-check parameters: a seed from RELIABILITY_SEED replays a reported failure. */
export function fcParams(numRuns: number) {
  const seed = process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : undefined;
  return { numRuns, includeErrorInReport: true, ...(seed !== undefined ? { seed } : {}) };
}
