// Idempotency-Key records (issue 11): per API key, in the event store itself, one stream per
// (key, Idempotency-Key), so every process and every node on the same store shares them and they
// survive restarts. They replay an answer; they never decide anything (DESIGN.md).
//
// A stream holds cycles: IdempotentRequestStarted (the request's fingerprint and a lock), then
// IdempotentResponseRecorded (the answer) or IdempotentRequestReleased (a retryable answer, not
// kept). The first append at the stream's expected revision wins a race between two processes.
import { createHash } from 'node:crypto';
import { IdempotencyKeyInUse, IdempotencyKeyReused, InvalidIdempotencyKey } from '../commands/errors.js';
import { idempotencyStream } from '../events/ledger.js';
import { ConflictError, NO_STREAM, type EventStore, type RecordedEvent } from '../events/store/port.js';
import type { Rebuild } from './bearer.js';

export const REPLAY_WINDOW_MS = 24 * 3600 * 1000;
/** A request still unanswered after this is taken to have died with its process; the key is free again. */
const LOCK_MS = 60_000;
/** How long a second request with the same key waits for the first one's answer before 409 in_use. */
const WAIT_MS = 10_000;
const POLL_MS = 25;

const KEY_SHAPE = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

export interface Claim {
  stream: string;
  /** Revision of our IdempotentRequestStarted. */
  revision: number;
}

export type Begin = { kind: 'replay'; status: number; body: string; rebuild?: Rebuild } | { kind: 'claimed'; claim: Claim };

interface Cycle {
  fingerprint: string;
  startedAt: number;
  lockedUntil: number;
  response?: { status: number; body: string; rebuild?: Rebuild };
  released: boolean;
}

function currentCycle(events: readonly RecordedEvent[]): Cycle | undefined {
  let cycle: Cycle | undefined;
  for (const e of events) {
    if (e.type === 'IdempotentRequestStarted') {
      cycle = { fingerprint: e.data.fingerprint, startedAt: Date.parse(e.data.at), lockedUntil: Date.parse(e.data.lockedUntil), released: false };
    } else if (cycle && e.type === 'IdempotentResponseRecorded') {
      cycle.response = { status: e.data.status, body: e.data.body, ...(e.data.rebuild ? { rebuild: e.data.rebuild } : {}) };
    }
    else if (cycle && e.type === 'IdempotentRequestReleased') cycle.released = true;
  }
  return cycle;
}

export const hashOf = (text: string): string => createHash('sha256').update(text).digest('base64url');

export function checkKey(key: string): void {
  if (!KEY_SHAPE.test(key)) throw new InvalidIdempotencyKey();
}

/**
 * Replays the answer kept for this key, or claims the key for this request. Throws
 * IdempotencyKeyReused for a different request, IdempotencyKeyInUse if the first is still running.
 */
export async function begin(store: EventStore, clock: () => Date, keyId: string, idempotencyKey: string, fingerprint: string): Promise<Begin> {
  const stream = idempotencyStream(keyId, hashOf(idempotencyKey));
  const waitUntil = clock().getTime() + WAIT_MS;
  for (;;) {
    const events = await store.readStream(stream);
    const revision = events.length > 0 ? events[events.length - 1]!.revision : NO_STREAM;
    const now = clock().getTime();
    const cycle = currentCycle(events);
    const live = cycle && !cycle.released && now - cycle.startedAt < REPLAY_WINDOW_MS;
    if (live) {
      if (cycle.fingerprint !== fingerprint) throw new IdempotencyKeyReused();
      if (cycle.response) return { kind: 'replay', ...cycle.response };
      if (cycle.lockedUntil > now) {
        if (now >= waitUntil) throw new IdempotencyKeyInUse();
        await new Promise((r) => setTimeout(r, POLL_MS));
        continue;
      }
      // The first request's process died before it answered: this one runs it again.
    }
    const at = new Date(now);
    try {
      await store.append(stream, [{ type: 'IdempotentRequestStarted', data: { fingerprint, lockedUntil: new Date(now + LOCK_MS).toISOString(), at: at.toISOString() } }], revision);
      return { kind: 'claimed', claim: { stream, revision: revision + 1 } };
    } catch (err) {
      if (err instanceof ConflictError) continue; // another process got there first: look again
      throw err;
    }
  }
}

/**
 * Keeps the answer for replay, or (retryable answers: 429, 5xx) frees the key for another try. The
 * body kept must hold no bearer value: `rebuild` says how to put one back (idempotency/bearer.ts).
 */
export async function finish(store: EventStore, clock: () => Date, claim: Claim, status: number, body: string, rebuild?: Rebuild): Promise<void> {
  const at = clock().toISOString();
  const keep = status < 500 && status !== 429;
  try {
    await store.append(
      claim.stream,
      [keep ? { type: 'IdempotentResponseRecorded', data: { status, body, at, ...(rebuild ? { rebuild } : {}) } } : { type: 'IdempotentRequestReleased', data: { at } }],
      claim.revision,
    );
  } catch (err) {
    // Our lock ran out and another request took the key over: its answer is the one kept.
    if (!(err instanceof ConflictError)) throw err;
  }
}
