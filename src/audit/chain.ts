// `audit verify`: recomputes every hash of the ledger from the events as they are now and compares
// them with the hashes stored at append time, the running root with the stored roots, and (given a
// digest an auditor kept) the root at the digest's position with the digest's. Trusts nothing it
// reads: a stored hash only localizes a change, the digest proves the prefix.
import { GENESIS, hashStored, nextRoot, type CheckItem } from '../events/chain.js';

export interface ChainFailure {
  stream: string;
  revision: number;
  position: number;
  reason: string;
}

export interface ChainReport {
  ok: boolean;
  events: number;
  streams: number;
  /** The last position read, and the root recomputed from the events up to it. */
  position: number;
  root: string;
  digest?: { position: number; root: string; matches: boolean };
  failures: ChainFailure[];
  failureCount: number;
}

export interface ChainCheckOptions {
  /** Check only this stream's chain (no roots unless a digest is given, which needs every event). */
  stream?: string;
  digest?: { position: number; root: string };
  maxFailures?: number;
}

export async function checkChain(items: Iterable<CheckItem> | AsyncIterable<CheckItem>, opts: ChainCheckOptions = {}): Promise<ChainReport> {
  const max = opts.maxFailures ?? 20;
  const everything = opts.stream === undefined || opts.digest !== undefined;
  const heads = new Map<string, { revision: number; hash: Buffer }>();
  const failures: ChainFailure[] = [];
  let failureCount = 0;
  const fail = (stream: string, revision: number, position: number, reason: string) => {
    failureCount += 1;
    if (failures.length < max) failures.push({ stream, revision, position, reason });
  };
  const reported = (stream: string) => opts.stream === undefined || opts.stream === stream;
  // `trueRoot` folds the hashes recomputed from the events (what a digest is checked against);
  // `localRoot` resyncs to each stored root after a difference, so one removed event is reported
  // once, where it happened, and not again at every later event.
  let trueRoot = GENESIS;
  let localRoot = GENESIS;
  let events = 0;
  let position = 0;
  let last: { stream: string; revision: number; position: number } | undefined;
  let digestChecked = opts.digest === undefined;
  const checkDigest = (atEnd: boolean) => {
    digestChecked = true;
    const d = opts.digest!;
    const matches = position === d.position && trueRoot.toString('hex') === d.root;
    report.digest = { position: d.position, root: d.root, matches };
    if (matches) return;
    const at = last ?? { stream: '(none)', revision: -1, position: 0 };
    fail(at.stream, at.revision, at.position, position < d.position
      ? atEnd
        ? `the ledger ends at position ${position}, before the digest's position ${d.position}: events were removed from its end`
        : `the event at the digest's position ${d.position} is missing`
      : `the root recomputed from the events up to position ${d.position} is not the digest's: events at or before it were changed, removed, inserted or reordered (with their hashes)`);
  };
  const report: ChainReport = { ok: false, events: 0, streams: 0, position: 0, root: '', failures, failureCount: 0 };

  for await (const item of items) {
    if (!digestChecked && item.position > opts.digest!.position) checkDigest(false);
    const { event: e, stored } = item;
    if (!e) {
      // A hash row whose event is gone: the event was deleted (or moved to another position).
      const s = stored!;
      if (reported(s.stream)) fail(s.stream, s.revision, item.position, 'the event is missing: its hash was stored at this position but the event is gone');
      heads.set(s.stream, { revision: s.revision, hash: s.hash });
      localRoot = s.root ?? nextRoot(localRoot, s.hash);
      continue;
    }
    if (!everything && e.stream !== opts.stream) continue;
    events += 1;
    position = item.position;
    last = { stream: e.stream, revision: e.revision, position: item.position };
    const head = heads.get(e.stream) ?? { revision: -1, hash: GENESIS };
    const here = (reason: string, revision = e.revision) => reported(e.stream) && fail(e.stream, revision, item.position, reason);
    if (e.revision > head.revision + 1) here(`revision ${head.revision + 1} is missing (the stream goes from ${head.revision} to ${e.revision})`, head.revision + 1);
    else if (e.revision <= head.revision) here(`revision ${e.revision} comes after revision ${head.revision}: events were reordered or duplicated`);
    let computed: Buffer | undefined;
    try {
      computed = hashStored(head.hash, e, stored?.hash);
    } catch {
      here('its data is not valid JSON any more');
    }
    if (!stored) here('it has no stored hash: it was added behind the service\'s back');
    else if (stored.stream !== e.stream || stored.revision !== e.revision) here(`the hash stored at this position is that of ${stored.stream} revision ${stored.revision}: events were moved or reordered`);
    else if (computed && !computed.equals(stored.hash)) here('it does not match its stored hash: the event (or one before it in its stream) was changed');
    // Chain on from the stored hash where there is one, so a change is reported at its event only.
    heads.set(e.stream, { revision: Math.max(e.revision, head.revision), hash: stored?.hash ?? computed ?? GENESIS });
    const mine = computed ?? stored?.hash ?? GENESIS;
    trueRoot = nextRoot(trueRoot, mine);
    if (everything) {
      localRoot = nextRoot(localRoot, stored?.hash ?? mine);
      if (stored?.root && !stored.root.equals(localRoot)) {
        here('the running root stored here differs from the one recomputed: an event before it was removed, inserted or changed');
        localRoot = stored.root;
      }
    }
  }
  if (!digestChecked) checkDigest(true);
  Object.assign(report, { ok: failureCount === 0, events, streams: heads.size, position, root: trueRoot.toString('hex'), failureCount });
  return report;
}
