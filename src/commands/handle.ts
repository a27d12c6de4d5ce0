// The whole command handler: read the key's stream (from a cached fold), decide, append with the
// expected revision; on a conflict, re-read and decide again.
//
// Commands on one key run one after another in this process (a lock per key), so concurrent
// requests of one partner do not race each other into conflicts. With a store that group-commits
// (EventStore.enqueue: SQLite) the lock is held only until the append is queued, not until it is
// durable: the next command decides on the state after the queued events (a speculative tip) and
// is queued `after` it, so a burst of one partner's commands shares one commit. No answer leaves
// before its own events are durable: a command that appended waits for its commit; one that
// appended nothing or was refused (a DomainError) waits until the state it decided on is durable,
// and decides again if that state never became true. With any other store (PostgreSQL, KurrentDB)
// the lock is held until the append is durable, as before.
import { ledgerStream, type LedgerEvent } from '../events/ledger.js';
import { ConflictError, type EventStore, type QueuedAppend } from '../events/store/port.js';
import { StoreUnavailable } from './errors.js';
import { fold, initialState, type KeyState } from './state.js';

export interface Decision {
  events: LedgerEvent[];
  state: KeyState;
  revision: number;
}

export interface Ledger {
  /** The key's current folded state (caught up with the store). */
  load(keyId: string): Promise<{ state: KeyState; revision: number }>;
  /**
   * `readAt`: the revision a load() of this key returned moments ago. The first attempt then
   * decides on that state as held, without reading the stream again, unless this process has
   * learned of a newer one since; an append by another process in between is a conflict, and the
   * retry reads the stream (issue 22o: a submission read the key's stream twice in a row).
   */
  handle(keyId: string, decide: (state: KeyState) => LedgerEvent[], readAt?: number): Promise<Decision>;
}

const MAX_CONFLICT_RETRIES = 20;
const MAX_CACHED_KEYS = 10_000;
const FOLD_SLICE = 2_000;

/** A state decided on, with the append that makes it true when it is not durable yet. */
interface Tip {
  state: KeyState;
  revision: number;
  queued?: QueuedAppend;
  /** The tip this one was decided on (its queued append comes first). */
  base?: Tip;
}

type Step =
  | { kind: 'queued'; tip: Tip; events: LedgerEvent[] }
  | { kind: 'written'; tip: Tip; events: LedgerEvent[] }
  | { kind: 'nothing'; base: Tip }
  | { kind: 'refused'; base: Tip; err: unknown }
  | { kind: 'conflict' };

/** True once the append is durable, false when it was refused. */
const durable = (q: QueuedAppend) => q.done.then(() => true, () => false);

/**
 * `afterAppend` runs after every successful append (the composition root uses it to bring the read
 * models up to date before the command answers: read-your-writes).
 */
export function createLedger(store: EventStore, afterAppend: () => Promise<void> = async () => {}): Ledger {
  const cache = new Map<string, { state: KeyState; revision: number }>();
  /** Per key, the newest speculative tip while its append is pending. */
  const tips = new Map<string, Tip>();
  /** Per key, the tail of the chain of commands waiting for the key. */
  const locks = new Map<string, Promise<void>>();
  const enqueue = store.enqueue?.bind(store);

  const remember = (keyId: string, entry: { state: KeyState; revision: number }) => {
    const had = cache.get(keyId);
    if (had && had.revision >= entry.revision) return;
    cache.delete(keyId);
    cache.set(keyId, { state: entry.state, revision: entry.revision });
    if (cache.size > MAX_CACHED_KEYS) cache.delete(cache.keys().next().value as string);
  };

  async function load(keyId: string) {
    const cached = cache.get(keyId) ?? { state: initialState(), revision: -1 };
    const newer = await store.readStream(ledgerStream(keyId), cached.revision + 1);
    if (newer.length === 0) return cached;
    // A long history (a process meeting a key with thousands of jobs) is folded a slice at a time,
    // yielding between slices, so the API's event loop keeps answering meanwhile.
    let state = cached.state;
    for (let i = 0; i < newer.length; i += FOLD_SLICE) {
      if (i > 0) await new Promise((r) => setImmediate(r));
      state = fold(newer.slice(i, i + FOLD_SLICE), state);
    }
    const entry = { state, revision: newer[newer.length - 1]!.revision };
    remember(keyId, entry);
    return cache.get(keyId) ?? entry;
  }

  /** Runs `fn` when the key's earlier commands have let go of it. */
  async function exclusive<T>(keyId: string, fn: () => Promise<T>): Promise<T> {
    const before = locks.get(keyId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = before.then(() => mine);
    locks.set(keyId, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (locks.get(keyId) === tail) locks.delete(keyId);
    }
  }

  /** Forgets the key's speculative tip if it was built on `failed` (it is refused too, by `after`). */
  function dropDescendants(keyId: string, failed: Tip) {
    for (let t = tips.get(keyId); t; t = t.base) {
      if (t === failed) {
        tips.delete(keyId);
        return;
      }
    }
  }

  async function step(keyId: string, decide: (state: KeyState) => LedgerEvent[], readAt: number | undefined): Promise<Step> {
    const held = cache.get(keyId);
    const base: Tip = tips.get(keyId) ?? (held !== undefined && held.revision === readAt ? held : await load(keyId));
    let events: LedgerEvent[];
    try {
      events = decide(base.state);
    } catch (err) {
      return { kind: 'refused', base, err };
    }
    if (events.length === 0) return { kind: 'nothing', base };
    const stream = ledgerStream(keyId);
    if (enqueue) {
      const queued = enqueue(stream, events, base.revision, base.queued);
      const tip: Tip = { state: fold(events, base.state), revision: base.revision + events.length, queued, base };
      tips.set(keyId, tip);
      return { kind: 'queued', tip, events };
    }
    try {
      await store.append(stream, events, base.revision);
    } catch (err) {
      if (err instanceof ConflictError) return { kind: 'conflict' };
      throw err;
    }
    return { kind: 'written', tip: { state: fold(events, base.state), revision: base.revision + events.length }, events };
  }

  async function handle(keyId: string, decide: (state: KeyState) => LedgerEvent[], readAt?: number): Promise<Decision> {
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const s = await exclusive(keyId, () => step(keyId, decide, attempt === 0 ? readAt : undefined));
      switch (s.kind) {
        case 'conflict':
          continue;
        case 'nothing':
        case 'refused':
          // Decided on a state not durable yet: the answer holds only if that state does.
          if (s.base.queued && !(await durable(s.base.queued))) continue;
          if (s.kind === 'refused') throw s.err;
          return { events: [], state: s.base.state, revision: s.base.revision };
        case 'queued':
          try {
            await s.tip.queued!.done;
          } catch (err) {
            dropDescendants(keyId, s.tip);
            if (err instanceof ConflictError) continue;
            throw err;
          } finally {
            // Settled: no later tip's walk needs what came before it, and a key that is never idle
            // must not keep every state it ever had reachable through the chain.
            s.tip.base = undefined;
          }
          if (tips.get(keyId) === s.tip) tips.delete(keyId);
          break;
        case 'written':
          break;
      }
      remember(keyId, s.tip);
      await afterAppend();
      return { events: s.events, state: s.tip.state, revision: s.tip.revision };
    }
    throw new StoreUnavailable('The ledger is too busy right now; retry shortly.');
  }

  return { load, handle };
}
