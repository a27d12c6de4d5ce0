// GET /readyz: may a load balancer send this node traffic? Yes when the event store, the read
// models and the storage answer and the read models are caught up with the ledger. Each check has
// a deadline, so a hung dependency gives a prompt 503 rather than a probe that never returns.
import { constants, accessSync, statSync } from 'node:fs';
import { checkpointOf } from '../projections/runner.js';
import { paths, type Service } from '../service.js';

export type Check = 'event_store' | 'read_models' | 'storage' | 'caught_up';

const DEADLINE_MS = 2_000;

function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`${what} did not answer within ${DEADLINE_MS} ms`)), DEADLINE_MS)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The read-model file as the next process would find it. The open handle outlives a file removed
 * or made unreadable behind its back (projections/live.ts keeps it on purpose), so the path is
 * checked itself: present, and readable and writable. Root passes every access() check, so the
 * owner's permission bits are read too.
 */
function readModelFileUsable(path: string): void {
  const st = statSync(path);
  accessSync(path, constants.R_OK | constants.W_OK);
  if ((st.mode & 0o600) !== 0o600) throw new Error(`${path} is not readable and writable by its owner (mode ${(st.mode & 0o777).toString(8)})`);
}

/** Failing checks by name, with why; empty when ready. */
export async function readiness(svc: Service): Promise<Partial<Record<Check, string>>> {
  const failed: Partial<Record<Check, string>> = {};
  const why = (err: unknown) => (err as Error).message ?? String(err);
  const [head] = await Promise.all([
    within(svc.store.lastPosition(), 'the event store').catch((err) => void (failed.event_store = why(err))),
    within(svc.storage.ping(), 'the storage').catch((err) => void (failed.storage = why(err))),
  ]);
  let checkpoint: number | undefined;
  try {
    readModelFileUsable(paths(svc.config.dataDir).readModels);
    checkpoint = checkpointOf(svc.readDb());
  } catch (err) {
    failed.read_models = why(err);
  }
  if (typeof head === 'number' && checkpoint !== undefined && checkpoint < head) {
    // Behind: events another process appended and nobody projected yet. Catching up is what any
    // writer here would do next; only if that fails or stalls is the node not ready.
    try {
      await within(svc.projector.catchUp(), 'the projection');
      const now = checkpointOf(svc.readDb());
      if (now < head) failed.caught_up = `read models at position ${now}, ledger at ${head}`;
    } catch (err) {
      failed.caught_up = why(err);
    }
  }
  return failed;
}

const NAMES: Record<Check, string> = {
  event_store: 'the event store is unreachable',
  read_models: 'the read models are unreachable',
  storage: 'the video storage is unreachable',
  caught_up: 'the read models are behind the ledger',
};

/** The 503 message: which parts failed, in words (the details go to the log, not to the caller). */
export const notReadyMessage = (failed: Partial<Record<Check, string>>) =>
  `Not ready: ${(Object.keys(failed) as Check[]).map((c) => NAMES[c]).join('; ')}.`;
