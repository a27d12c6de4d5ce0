// The whole command handler: read the key's stream (from a cached fold), decide, append with the
// expected revision; on a conflict, re-read and decide again.
import { ledgerStream, type LedgerEvent } from '../events/ledger.js';
import { ConflictError, type EventStore } from '../events/store/port.js';
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
  handle(keyId: string, decide: (state: KeyState) => LedgerEvent[]): Promise<Decision>;
}

const MAX_CONFLICT_RETRIES = 20;
const MAX_CACHED_KEYS = 10_000;
const FOLD_SLICE = 2_000;

/**
 * `afterAppend` runs after every successful append (the composition root uses it to bring the read
 * models up to date before the command answers: read-your-writes).
 */
export function createLedger(store: EventStore, afterAppend: () => Promise<void> = async () => {}): Ledger {
  const cache = new Map<string, { state: KeyState; revision: number }>();

  const remember = (keyId: string, entry: { state: KeyState; revision: number }) => {
    cache.delete(keyId);
    cache.set(keyId, entry);
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
    return entry;
  }

  async function handle(keyId: string, decide: (state: KeyState) => LedgerEvent[]): Promise<Decision> {
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const { state, revision } = await load(keyId);
      const events = decide(state);
      if (events.length === 0) return { events, state, revision };
      try {
        await store.append(ledgerStream(keyId), events, revision);
      } catch (err) {
        if (err instanceof ConflictError) continue;
        throw err;
      }
      const next = { state: fold(events, state), revision: revision + events.length };
      remember(keyId, next);
      await afterAppend();
      return { events, ...next };
    }
    throw new StoreUnavailable('The ledger is too busy right now; retry shortly.');
  }

  return { load, handle };
}
