// The event-store port. SQLite (default) and KurrentDB implement it; one contract suite tests both.
import type { CheckItem } from '../chain.js';
import type { LedgerEvent } from '../ledger.js';

/** Revision of the last event in a stream; NO_STREAM when it has none. */
export const NO_STREAM = -1;

export interface EventMeta {
  stream: string;
  /** 0-based index of the event in its stream. */
  revision: number;
  /** Position in the global order of all streams (1-based). */
  position: number;
  schemaVersion: number;
  recordedAt: string;
}

/** A stored event: the ledger union (so `type` still narrows `data`) plus where it was stored. */
export type RecordedEvent = LedgerEvent & EventMeta;

export interface AppendResult {
  nextRevision: number;
  lastPosition: number;
}

/** An append waiting in a group-committing store's queue (EventStore.enqueue). */
export interface QueuedAppend {
  /** Settles once the transaction that holds it is durable (or it was refused). */
  readonly done: Promise<AppendResult>;
}

export interface EventStore {
  /** Appends atomically, only if the stream is at `expectedRevision`; otherwise throws ConflictError and writes nothing. */
  append(stream: string, events: readonly LedgerEvent[], expectedRevision: number): Promise<AppendResult>;
  /**
   * Optional: a store that group-commits (SQLite) queues the append at once, writes it with every
   * other append queued meanwhile in one transaction (one fsync), and settles `done` when that
   * transaction is durable, with append()'s guarantees for each. `after`: an append queued earlier on
   * this store to the same stream, that this one was decided on top of; this one is written only
   * if that one was, else it is refused with ConflictError. So a caller may decide a stream's next
   * command before the previous one is durable, and both share one commit. Stores without it
   * (PostgreSQL, KurrentDB) are written one append at a time (commands/handle.ts).
   */
  enqueue?(stream: string, events: readonly LedgerEvent[], expectedRevision: number, after?: QueuedAppend): QueuedAppend;
  readStream(stream: string, fromRevision?: number): Promise<RecordedEvent[]>;
  /** Events after `afterPosition` in global order, at most `limit` of them. */
  readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]>;
  /**
   * Optional: the events this store itself committed after `afterPosition`, from memory, as readAll
   * would return them, when it holds every event from there up to its own last commit (no other
   * writer's in between); undefined when it cannot tell (read them with readAll then); empty when
   * its last commit is at or before `afterPosition`. It says nothing of other writers' appends after
   * its own last commit: for a caller that needs only what this process appended (SQLite: the
   * projection of a command's own events, issue 22o).
   */
  committedAfter?(afterPosition: number): RecordedEvent[] | undefined;
  /** The last global position; 0 when the store is empty. */
  lastPosition(): Promise<number>;
  /** The running root of the hash chain (events/chain.ts) after the last event, for `ledger digest`. */
  digest(): Promise<{ position: number; root: string }>;
  /** Every event as stored with the hash stored for it, in global order (of one stream if given), for `audit verify`. */
  checkItems(stream?: string): AsyncIterable<CheckItem>;
  close(): Promise<void>;
}

export class ConflictError extends Error {
  override name = 'ConflictError';
  readonly stream: string;
  readonly expected: number;
  readonly actual: number;

  constructor(stream: string, expected: number, actual: number) {
    super(`stream ${stream} is at revision ${actual}, expected ${expected}`);
    this.stream = stream;
    this.expected = expected;
    this.actual = actual;
  }
}

/** The store cannot be reached or written (disk error, lock timeout, server down). */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}
