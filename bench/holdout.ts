// The never-tuned count clips (bench/holdout.json), read once for the count eval and the form eval:
// a module of its own because eval.ts loads form-eval.ts, which needs them too.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const holdoutFile = JSON.parse(readFileSync(join(here, 'holdout.json'), 'utf8')) as { clips: string[]; added?: { clips: string[] }[]; examined?: { clips: string[] }[] };

/** Held-out clips examined since (holdout.json `examined`, each with why): tuning clips now, for the form holdout too. */
export const examinedClips: ReadonlySet<string> = new Set((holdoutFile.examined ?? []).flatMap((e) => e.clips));

/**
 * Clips never tuned on (bench/holdout.json): the first list, and each list added later with its own
 * rule, less the clips examined since.
 */
export const holdout: ReadonlySet<string> = new Set([...holdoutFile.clips, ...(holdoutFile.added ?? []).flatMap((a) => a.clips)].filter((c) => !examinedClips.has(c)));
