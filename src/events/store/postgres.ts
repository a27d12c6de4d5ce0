// The event-store port on PostgreSQL, for several API nodes and workers on several machines that
// share one server. Streams, revisions, positions and the hash chain are those of the SQLite
// ledger: positions are 1, 2, 3, ... with no gaps (one appender at a time, postgres-schema.ts says
// why), so a reader that has seen position N has seen everything before it, and the projector's
// numeric checkpoint works unchanged.
import pg from 'pg';
import { canonicalJson, type CheckItem } from '../chain.js';
import { CURRENT_SCHEMA_VERSION, type LedgerEvent } from '../ledger.js';
import { upcast } from '../upcasters.js';
import { ConflictError, StoreUnavailableError, type AppendResult, type EventStore, type RecordedEvent } from './port.js';
import { channelOf, migrate, SCHEMA_NAME } from './postgres-schema.js';

export interface PostgresOptions {
  /** POSTGRES_SCHEMA: where the ledger's tables live (default rep_coach). */
  schema?: string;
  /** Connections in this process's pool. */
  poolSize?: number;
  /** How long a connect or an append waiting for the appender lock may take before the store counts as unavailable. */
  busyTimeoutMs?: number;
  clock?: () => Date;
  /** How often a subscription polls when no notification came (LISTEN/NOTIFY is the fast path). */
  pollMs?: number;
}

/** An event as stored elsewhere (its own schema version and time): the migration from SQLite. */
export interface StoredEvent {
  type: string;
  /** The data's JSON text; made canonical before it is stored and hashed. */
  data: string;
  schemaVersion: number;
  recordedAt: string;
}

interface Row {
  position: string;
  stream: string;
  revision: number;
  type: string;
  schema_version: number;
  data: string;
  recorded_at: string;
}

/**
 * Failures that mean "the server cannot be reached or cannot take this now" rather than a bug:
 * connection exceptions (08), insufficient resources (53), operator intervention (57: shutdown,
 * cancelled by lock or statement timeout), lock not available (55P03), read-only standby (25006).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57|55P03|25006)/;
const UNAVAILABLE_NODE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOENT']);

export function unavailable(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !(err instanceof Error)) return err;
  const code = String((err as { code?: unknown }).code ?? '');
  if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE.has(code) || /Connection terminated|connection timeout|timeout expired|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(err.message)) {
    return new StoreUnavailableError(`PostgreSQL unavailable: ${err.message}`);
  }
  return err;
}

function toRecorded(r: Row): RecordedEvent {
  const lifted = upcast({ type: r.type, data: JSON.parse(r.data), schemaVersion: r.schema_version });
  return {
    stream: r.stream,
    revision: r.revision,
    position: Number(r.position),
    schemaVersion: lifted.schemaVersion,
    type: lifted.type,
    data: lifted.data,
    recordedAt: r.recorded_at,
  } as RecordedEvent;
}

const COLUMNS = 'position, stream, revision, type, schema_version, data, recorded_at';
const PAGE = 2_000;

export interface Subscription {
  stop(): Promise<void>;
}

export class PostgresEventStore implements EventStore {
  readonly pool: pg.Pool;
  readonly schema: string;
  private readonly clock: () => Date;
  private readonly pollMs: number;
  private readonly clientConfig: pg.ClientConfig;

  private constructor(url: string, opts: PostgresOptions) {
    this.schema = opts.schema ?? 'rep_coach';
    if (!SCHEMA_NAME.test(this.schema)) throw new Error(`POSTGRES_SCHEMA must be a plain lower-case identifier, got "${this.schema}"`);
    this.clock = opts.clock ?? (() => new Date());
    this.pollMs = opts.pollMs ?? 1000;
    const timeout = Math.max(1, opts.busyTimeoutMs ?? 5000);
    // A connect gets at least 5 s (a TLS handshake to a loaded server may take a while); waiting for
    // the appender lock gets exactly STORE_BUSY_TIMEOUT_MS, as waiting for SQLite's lock does.
    this.clientConfig = { connectionString: url, connectionTimeoutMillis: Math.max(timeout, 5000), lock_timeout: timeout, application_name: 'rep-coach' };
    this.pool = new pg.Pool({ ...this.clientConfig, max: opts.poolSize ?? 10 });
    // An idle pooled connection the server drops must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  /** Connects and creates or migrates the schema; throws (StoreUnavailableError when unreachable) otherwise. */
  static async open(url: string, opts: PostgresOptions = {}): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(url, opts);
    try {
      const client = await store.pool.connect();
      try {
        const version = Number((await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0]!.v);
        if (version < 110000) throw new Error(`PostgreSQL ${Math.floor(version / 10000)} is too old: the ledger needs 11 or later (sha256())`);
        await migrate((sql, params) => client.query(sql, params), store.schema);
      } finally {
        client.release();
      }
      return store;
    } catch (err) {
      await store.pool.end().catch(() => undefined);
      throw unavailable(err);
    }
  }

  private async q<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]> {
    try {
      return (await this.pool.query<T>(sql, params)).rows;
    } catch (err) {
      throw unavailable(err);
    }
  }

  async append(stream: string, events: readonly LedgerEvent[], expectedRevision: number): Promise<AppendResult> {
    const recordedAt = this.clock().toISOString();
    return this.write(stream, events.map((e) => ({ type: e.type, canonical: canonicalJson(e.data), schemaVersion: CURRENT_SCHEMA_VERSION, recordedAt })), expectedRevision);
  }

  /** Appends events as another store kept them (schema version, time, data text): the migration from SQLite. */
  async appendStored(stream: string, events: readonly StoredEvent[], expectedRevision: number): Promise<AppendResult> {
    return this.write(stream, events.map((e) => ({ ...e, canonical: canonicalJson(JSON.parse(e.data)) })), expectedRevision);
  }

  private async write(stream: string, events: readonly { type: string; canonical: string; schemaVersion: number; recordedAt: string }[], expected: number): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const s = this.schema;
    // The envelope's strings go JSON-quoted by JSON.stringify, so the server hashes exactly what encodeEvent() would.
    const [row] = await this.q<{ r: string[] }>(`SELECT ${s}.append_events($1, $2, $3, $4, $5, $6, $7, $8, $9) AS r`, [
      stream,
      JSON.stringify(stream),
      expected,
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.type)),
      events.map((e) => e.schemaVersion),
      events.map((e) => e.recordedAt),
      events.map((e) => JSON.stringify(e.recordedAt)),
      events.map((e) => e.canonical),
    ]);
    const [head, last] = row!.r.map(Number) as [number, number];
    if (last === 0) throw new ConflictError(stream, expected, head);
    return { nextRevision: head, lastPosition: last };
  }

  async readStream(stream: string, fromRevision = 0): Promise<RecordedEvent[]> {
    const rows = await this.q<Row>(`SELECT ${COLUMNS} FROM ${this.schema}.events WHERE stream = $1 AND revision >= $2 ORDER BY revision`, [stream, fromRevision]);
    return rows.map(toRecorded);
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]> {
    const rows = await this.q<Row>(`SELECT ${COLUMNS} FROM ${this.schema}.events WHERE position > $1 ORDER BY position LIMIT $2`, [afterPosition, Math.min(limit, 2 ** 31 - 1)]);
    return rows.map(toRecorded);
  }

  async lastPosition(): Promise<number> {
    const [row] = await this.q<{ p: string | null }>(`SELECT max(position) AS p FROM ${this.schema}.events`);
    return Number(row?.p ?? 0);
  }

  async digest(): Promise<{ position: number; root: string }> {
    const [row] = await this.q<{ position: string; root: Buffer }>(`SELECT position, root FROM ${this.schema}.events ORDER BY position DESC LIMIT 1`);
    return row ? { position: Number(row.position), root: row.root.toString('hex') } : { position: 0, root: '0'.repeat(64) };
  }

  /** The root stored with the event at `position` (undefined when there is none): resuming a migration. */
  async rootAt(position: number): Promise<{ stream: string; revision: number; root: Buffer } | undefined> {
    const [row] = await this.q<{ stream: string; revision: number; root: Buffer }>(`SELECT stream, revision, root FROM ${this.schema}.events WHERE position = $1`, [position]);
    return row;
  }

  /** Every event with the hash and running root stored with it, in one REPEATABLE READ snapshot, a page at a time. */
  async *checkItems(stream?: string): AsyncGenerator<CheckItem> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    let broken = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const where = stream === undefined ? '' : 'AND stream = $3';
      let after = 0;
      for (;;) {
        const params: unknown[] = [after, PAGE];
        if (stream !== undefined) params.push(stream);
        const { rows } = await client.query<Row & { hash: Buffer; root: Buffer }>(
          `SELECT ${COLUMNS}, hash, root FROM ${this.schema}.events WHERE position > $1 ${where} ORDER BY position LIMIT $2`,
          params,
        );
        for (const r of rows) {
          const position = Number(r.position);
          yield {
            position,
            event: { stream: r.stream, revision: r.revision, type: r.type, schemaVersion: r.schema_version, recordedAt: r.recorded_at, data: r.data },
            stored: { stream: r.stream, revision: r.revision, hash: r.hash, root: r.root },
          };
        }
        if (rows.length < PAGE) break;
        after = Number(rows[rows.length - 1]!.position);
      }
      await client.query('COMMIT');
    } catch (err) {
      broken = true;
      throw unavailable(err);
    } finally {
      // A generator left early (break) still ends its transaction before the connection goes back.
      if (!broken) await client.query('ROLLBACK').catch(() => undefined);
      client.release(broken);
    }
  }

  /**
   * Calls `onEvent` for every event after `afterPosition`, in global order, each once: woken by the
   * NOTIFY each commit sends, and by a poll every `pollMs` as a fallback. `onError` gets a lost
   * LISTEN connection; the caller resubscribes (projections/follow.ts).
   */
  subscribe(afterPosition: number, onEvent: (e: RecordedEvent) => void, onError: (err: unknown) => void): Subscription {
    let cursor = afterPosition;
    let stopped = false;
    let draining: Promise<void> | undefined;
    let again = false;
    const listener = new pg.Client(this.clientConfig);
    const drain = (): Promise<void> => {
      if (draining) {
        again = true;
        return draining;
      }
      draining = (async () => {
        do {
          again = false;
          for (;;) {
            if (stopped) return;
            const events = await this.readAll(cursor, 500);
            for (const e of events) {
              if (stopped) return;
              cursor = e.position;
              onEvent(e);
            }
            if (events.length < 500) break;
          }
        } while (again && !stopped);
      })()
        .catch(() => undefined) // the next notification or poll tries again
        .finally(() => (draining = undefined));
      return draining;
    };
    let failed = false;
    const fail = (err: unknown) => {
      if (stopped || failed) return;
      failed = true;
      onError(unavailable(err));
    };
    listener.on('notification', (n) => {
      if (Number(n.payload) > cursor) void drain();
    });
    listener.on('error', fail);
    listener.on('end', () => fail(new StoreUnavailableError('PostgreSQL LISTEN connection ended')));
    listener
      .connect()
      .then(() => listener.query(`LISTEN ${channelOf(this.schema)}`))
      .then(() => drain())
      .catch(fail);
    const poll = setInterval(() => void drain(), this.pollMs);
    poll.unref();
    return {
      stop: async () => {
        stopped = true;
        clearInterval(poll);
        await listener.end().catch(() => undefined);
        await draining;
      },
    };
  }

  /**
   * Runs `fn` while holding the appender lock: no append commits meanwhile (appenders wait, readers
   * do not). `projections rebuild` swaps its new file in under it, as the SQLite rebuild does under
   * the ledger's write lock.
   */
  async holdingAppends<T>(fn: () => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw unavailable(err);
    }
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('${this.schema}.append'))`);
      return await fn();
    } catch (err) {
      throw unavailable(err);
    } finally {
      await client.query('COMMIT').catch(() => undefined);
      client.release();
    }
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

