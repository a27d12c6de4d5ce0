// The event-store port on KurrentDB (the EventStoreDB server), for several API nodes and workers
// on several machines. One ledger stream per key, as with SQLite; the global position is the
// event's $all commit position, so the projector's numeric checkpoint works unchanged.
import {
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  isCommandError,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendStreamState,
  type ReadPosition,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { eventHash, GENESIS, rootOf, type CheckItem } from '../chain.js';
import { CURRENT_SCHEMA_VERSION, type LedgerEvent } from '../ledger.js';
import { upcast } from '../upcasters.js';
import { ConflictError, NO_STREAM, StoreUnavailableError, type AppendResult, type EventStore, type RecordedEvent } from './port.js';

const LEDGER_PREFIX = 'ledger-';
/** Only the ledger streams: system events ($stats, $settings, ...) never reach the projections. */
const ledgerOnly = () => streamNameFilter({ prefixes: [LEDGER_PREFIX] });

/** Kept with each event, so a read gives back what SQLite keeps in its columns and side table. */
interface Meta {
  schemaVersion: number;
  recordedAt: string;
  /** The event's chain hash (events/chain.ts), hex; absent on events appended before the chain existed. */
  hash?: string;
}

/**
 * Commit positions are byte offsets in the transaction log. Since v20 every append is an implicit
 * transaction whose events each have commit == prepare, so the commit position is unique per event
 * and increases in $all order; as a JS number it is exact up to 2^53 bytes (9 PB) of log.
 */
const toPosition = (n: number): ReadPosition => (n > 0 ? { commit: BigInt(n), prepare: BigInt(n) } : START);

/** gRPC failures that mean "the server cannot be reached now" rather than a bug in the request. */
const UNAVAILABLE = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader', 'cancelled', 'unknown']);

function unavailable(err: unknown): unknown {
  if (err instanceof Error && isCommandError(err) && UNAVAILABLE.has(err.type)) {
    return new StoreUnavailableError(`KurrentDB unavailable: ${err.message}`);
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 14 || code === 4 || code === 'ECONNREFUSED') return new StoreUnavailableError(`KurrentDB unavailable: ${String(err)}`);
  return err;
}

/** `anyStream`: a read of one named stream (ledger or idempotency); reads of $all keep only the ledger. */
function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent, anyStream = false): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || !e.isJson || (!anyStream && !e.streamId.startsWith(LEDGER_PREFIX))) return undefined;
  const meta = (e.metadata ?? {}) as Partial<Meta>;
  const commit = e.position?.commit ?? resolved.commitPosition;
  if (commit === undefined) throw new Error(`event ${e.id} came without a position (KurrentDB older than 22.6?)`);
  const lifted = upcast({ type: e.type, data: e.data as Record<string, unknown>, schemaVersion: meta.schemaVersion ?? 1 });
  return {
    stream: e.streamId,
    revision: Number(e.revision),
    position: Number(commit),
    schemaVersion: lifted.schemaVersion,
    type: lifted.type,
    data: lifted.data,
    recordedAt: meta.recordedAt ?? e.created.toISOString(),
  } as RecordedEvent;
}

export interface StoredEvent {
  type: string;
  data: unknown;
  schemaVersion: number;
  recordedAt: string;
}

export interface Subscription {
  stop(): Promise<void>;
}

export class KurrentDbEventStore implements EventStore {
  private readonly client: KurrentDBClient;
  private readonly clock: () => Date;
  /** The last hash this node appended or read per stream: an append chains from it without a read. */
  private readonly heads = new Map<string, { revision: number; hash: Buffer }>();

  /** `url` is a connection string, e.g. kurrentdb://localhost:2113?tls=false. */
  constructor(url: string, opts: { clock?: () => Date } = {}) {
    this.client = KurrentDBClient.connectionString(url);
    this.clock = opts.clock ?? (() => new Date());
  }

  async append(stream: string, events: readonly LedgerEvent[], expectedRevision: number): Promise<AppendResult> {
    const recordedAt = this.clock().toISOString();
    return this.appendStored(stream, events.map((e) => ({ ...e, schemaVersion: CURRENT_SCHEMA_VERSION, recordedAt })), expectedRevision);
  }

  /** Appends events as stored elsewhere (their own schema version and time): the migration from SQLite. */
  async appendStored(stream: string, events: readonly StoredEvent[], expectedRevision: number): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    // `streamState`, not `expectedRevision`: the client silently ignores the old key and appends
    // with no concurrency check at all.
    const streamState: AppendStreamState = expectedRevision === NO_STREAM ? 'no_stream' : BigInt(expectedRevision);
    try {
      // The expected-revision check makes the server refuse the append unless the event we chain
      // from is still the stream's last.
      let prev = await this.hashAt(stream, expectedRevision);
      const toAppend = events.map((e, i) => {
        prev = eventHash(prev, { stream, revision: expectedRevision + 1 + i, type: e.type, schemaVersion: e.schemaVersion, recordedAt: e.recordedAt, data: e.data });
        const metadata: Meta = { schemaVersion: e.schemaVersion, recordedAt: e.recordedAt, hash: prev.toString('hex') };
        return jsonEvent({ type: e.type, data: e.data as Record<string, unknown>, metadata: { ...metadata } });
      });
      const result = await this.client.appendToStream(stream, toAppend, { streamState });
      const actual = Number(result.nextExpectedRevision);
      if (!result.success) throw new ConflictError(stream, expectedRevision, actual);
      this.heads.set(stream, { revision: actual, hash: prev });
      return { nextRevision: actual, lastPosition: Number(result.position?.commit ?? 0) };
    } catch (err) {
      this.heads.delete(stream);
      if (err instanceof WrongExpectedVersionError) {
        const actual = typeof err.actualState === 'bigint' ? Number(err.actualState) : NO_STREAM;
        throw new ConflictError(stream, expectedRevision, actual);
      }
      throw unavailable(err);
    }
  }

  /** The chain hash of a stream's event (GENESIS before revision 0); recomputed for events stored without one. */
  private async hashAt(stream: string, revision: number): Promise<Buffer> {
    if (revision < 0) return GENESIS;
    const cached = this.heads.get(stream);
    if (cached?.revision === revision) return cached.hash;
    let prev = GENESIS;
    for await (const item of this.checkItems(stream)) {
      if (item.event!.revision > revision) break;
      prev = item.stored?.hash ?? eventHash(prev, { ...item.event!, data: JSON.parse(item.event!.data) });
    }
    this.heads.set(stream, { revision, hash: prev });
    return prev;
  }

  async digest(): Promise<{ position: number; root: string }> {
    return rootOf(this.checkItems());
  }

  async *checkItems(stream?: string): AsyncGenerator<CheckItem> {
    const read = stream === undefined
      ? this.client.readAll({ fromPosition: START, direction: FORWARDS, filter: ledgerOnly() })
      : this.client.readStream(stream, { fromRevision: START, direction: FORWARDS });
    try {
      for await (const resolved of read) {
        const e = resolved.event;
        if (!e || !e.isJson || !e.streamId.startsWith(LEDGER_PREFIX)) continue;
        const meta = (e.metadata ?? {}) as Partial<Meta>;
        const revision = Number(e.revision);
        yield {
          position: Number(e.position?.commit ?? resolved.commitPosition ?? 0),
          event: { stream: e.streamId, revision, type: e.type, schemaVersion: meta.schemaVersion ?? 1, recordedAt: meta.recordedAt ?? e.created.toISOString(), data: JSON.stringify(e.data) },
          stored: meta.hash ? { stream: e.streamId, revision, hash: Buffer.from(meta.hash, 'hex') } : undefined,
        };
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return;
      throw unavailable(err);
    }
  }

  async readStream(stream: string, fromRevision = 0): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, { fromRevision: BigInt(fromRevision), direction: FORWARDS })) {
        const e = toRecorded(resolved, true);
        if (e) out.push(e);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw unavailable(err);
    }
    return out;
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      // A read from a position includes the event at it: ask for one more and drop it.
      const events = this.client.readAll({ fromPosition: toPosition(afterPosition), maxCount: limit + 1, direction: FORWARDS, filter: ledgerOnly() });
      for await (const resolved of events) {
        const e = toRecorded(resolved);
        if (e && e.position > afterPosition && out.length < limit) out.push(e);
      }
    } catch (err) {
      throw unavailable(err);
    }
    return out;
  }

  /** The stream's last event as stored (revision, type, time); undefined when the stream has none. */
  async streamTail(stream: string): Promise<(StoredEvent & { revision: number }) | undefined> {
    try {
      for await (const resolved of this.client.readStream(stream, { fromRevision: END, maxCount: 1, direction: BACKWARDS })) {
        const e = resolved.event;
        if (!e) continue;
        const meta = (e.metadata ?? {}) as Partial<Meta>;
        return { revision: Number(e.revision), type: e.type, data: e.data, schemaVersion: meta.schemaVersion ?? 1, recordedAt: meta.recordedAt ?? '' };
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return undefined;
      throw unavailable(err);
    }
    return undefined;
  }

  async lastPosition(): Promise<number> {
    try {
      for await (const resolved of this.client.readAll({ fromPosition: END, maxCount: 1, direction: BACKWARDS, filter: ledgerOnly() })) {
        const e = toRecorded(resolved);
        if (e) return e.position;
      }
    } catch (err) {
      throw unavailable(err);
    }
    return 0;
  }

  /**
   * A catch-up subscription to the ledger streams of $all after `afterPosition`: events appended by
   * any node arrive in global order. `onError` gets a dropped subscription; the caller resubscribes.
   */
  subscribe(afterPosition: number, onEvent: (e: RecordedEvent) => void, onError: (err: unknown) => void): Subscription {
    const sub = this.client.subscribeToAll({ fromPosition: toPosition(afterPosition), filter: ledgerOnly() });
    sub.on('data', (resolved: AllStreamResolvedEvent) => {
      try {
        const e = toRecorded(resolved);
        if (e && e.position > afterPosition) onEvent(e);
      } catch (err) {
        onError(err);
      }
    });
    let stopping = false;
    sub.on('error', (err: Error) => onError(unavailable(err)));
    // A stream the server closes without an error is a drop too: the caller must resubscribe.
    const ended = () => !stopping && onError(new StoreUnavailableError('KurrentDB subscription ended'));
    sub.on('end', ended);
    sub.on('close', ended);
    return {
      stop: () => {
        stopping = true;
        return sub.unsubscribe();
      },
    };
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
