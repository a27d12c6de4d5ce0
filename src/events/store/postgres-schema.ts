// The PostgreSQL ledger's schema, created or migrated when a process opens the store. Everything
// lives in one schema (POSTGRES_SCHEMA, default rep_coach) so the ledger can share a database.
//
// Why appends go through a function (append_events) rather than INSERTs from the client: the
// global order is made gapless by one appender lock per commit (pg_advisory_xact_lock, held until
// the transaction commits), so a position is visible before any later one is handed out. Holding
// that lock across client round trips would make every append pay for the network; inside one
// function call the lock covers only server-side work and the commit. The function also computes
// the chain hash and running root (events/chain.ts) from the event's canonical encoding, which the
// client sends pieces of, so no client needs the previous hash before it appends.

/** A schema name is spliced into SQL: only plain identifiers. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The NOTIFY channel on which every commit announces its last position. */
export const channelOf = (schema: string): string => `${schema}_events`;

/** Migrations by version; each runs once, in order, in one transaction with its version bump. */
export function migrations(s: string): string[] {
  return [
    // 1: the events table, append-only by trigger, and the append function.
    `
CREATE TABLE ${s}.events (
  position       bigint  PRIMARY KEY,
  stream         text    NOT NULL,
  revision       integer NOT NULL,
  type           text    NOT NULL,
  schema_version integer NOT NULL,
  -- The data's canonical JSON text exactly as hashed (jsonb would reorder keys and normalize numbers).
  data           text    NOT NULL,
  recorded_at    text    NOT NULL,
  hash           bytea   NOT NULL,
  root           bytea   NOT NULL,
  UNIQUE (stream, revision)
);

-- A mistaken UPDATE, DELETE or TRUNCATE fails loudly; a deliberate one (triggers disabled by an
-- owner) still shows in \`audit verify\`, which trusts nothing it reads.
CREATE FUNCTION ${s}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % on %.events refused', TG_OP, TG_TABLE_SCHEMA;
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON ${s}.events FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON ${s}.events FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_change();

-- Returns {head, last_position}: head is the stream's revision after the call; last_position is 0
-- when the stream was not at p_expected (nothing written: a conflict).
CREATE FUNCTION ${s}.append_events(
  p_stream text, p_stream_json text, p_expected integer,
  p_types text[], p_types_json text[], p_schema_versions integer[],
  p_recorded_ats text[], p_recorded_ats_json text[], p_datas text[]
) RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  head integer;
  prev bytea;
  pos  bigint;
  rt   bytea;
  enc  text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('${s}.append'));
  SELECT e.revision, e.hash INTO head, prev FROM ${s}.events e WHERE e.stream = p_stream ORDER BY e.revision DESC LIMIT 1;
  IF head IS NULL THEN
    head := -1;
    prev := decode(repeat('00', 32), 'hex');
  END IF;
  IF head <> p_expected THEN
    RETURN ARRAY[head, 0]::bigint[];
  END IF;
  SELECT e.position, e.root INTO pos, rt FROM ${s}.events e ORDER BY e.position DESC LIMIT 1;
  IF pos IS NULL THEN
    pos := 0;
    rt := decode(repeat('00', 32), 'hex');
  END IF;
  FOR i IN 1 .. array_length(p_types, 1) LOOP
    head := head + 1;
    pos := pos + 1;
    -- encodeEvent() of events/chain.ts: the envelope's keys in sorted order around the data's text.
    enc := '{"data":' || p_datas[i] || ',"recordedAt":' || p_recorded_ats_json[i] || ',"revision":' || head
      || ',"schemaVersion":' || p_schema_versions[i] || ',"stream":' || p_stream_json || ',"type":' || p_types_json[i] || '}';
    prev := sha256(prev || convert_to(enc, 'UTF8'));
    rt := sha256(rt || prev);
    INSERT INTO ${s}.events (position, stream, revision, type, schema_version, data, recorded_at, hash, root)
      VALUES (pos, p_stream, head, p_types[i], p_schema_versions[i], p_datas[i], p_recorded_ats[i], prev, rt);
  END LOOP;
  -- Delivered at commit, in commit order, to every node's LISTEN connection.
  PERFORM pg_notify('${channelOf(s)}', pos::text);
  RETURN ARRAY[head, pos]::bigint[];
END $$;
`,
  ];
}

/** Runs the migrations not applied yet, under a lock so two processes starting at once do not race. */
export async function migrate(query: (sql: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>, s: string): Promise<number> {
  await query(`SELECT pg_advisory_lock(hashtext('${s}.migrate'))`);
  try {
    await query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)`);
    await query(`INSERT INTO ${s}.schema_version (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING`);
    const current = Number((await query(`SELECT version FROM ${s}.schema_version WHERE id = 1`)).rows[0]!.version);
    const all = migrations(s);
    if (current > all.length) throw new Error(`the ledger schema ${s} is at version ${current}, newer than this build knows (${all.length}): upgrade the service`);
    for (let v = current; v < all.length; v++) {
      await query('BEGIN');
      try {
        await query(all[v]!);
        await query(`UPDATE ${s}.schema_version SET version = $1 WHERE id = 1`, [v + 1]);
        await query('COMMIT');
      } catch (err) {
        await query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }
    return all.length;
  } finally {
    await query(`SELECT pg_advisory_unlock(hashtext('${s}.migrate'))`).catch(() => undefined);
  }
}
