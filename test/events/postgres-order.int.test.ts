// The classic bug of PostgreSQL event stores: a position taken from a sequence is handed out before
// its transaction commits, so a reader polling "after N" can pass a slower transaction's event and
// never see it. The store makes one appender commit at a time (postgres-schema.ts). First the bug
// and its absence step by step, then slow and fast commits interleaved at random under several
// subscribers, each of which must see every event exactly once, in the same order.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { LedgerEvent } from '../../src/events/ledger.js';
import { NO_STREAM, type RecordedEvent } from '../../src/events/store/port.js';
import { PostgresEventStore } from '../../src/events/store/postgres.js';
import { NO_POSTGRES, startPostgres, type TestPostgres } from '../support/postgres.js';

let server: TestPostgres | undefined;
before(async () => {
  if (!NO_POSTGRES) server = await startPostgres();
});
after(() => server?.stop());
const skip = NO_POSTGRES ?? false;

const event = (n: number): LedgerEvent => ({ type: 'KeySuspended', data: { keyId: `k${n}`, at: '2026-01-01T00:00:00.000Z' } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a sequence-numbered table loses a slow commit\'s event for a poller; the store makes the fast commit wait instead', { skip }, async () => {
  const url = await server!.freshDatabase();
  const [slow, fast] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  await Promise.all([slow.connect(), fast.connect()]);
  const store = await PostgresEventStore.open(url);
  try {
    // The naive design: position bigserial, no lock.
    await slow.query('CREATE TABLE naive (position bigserial PRIMARY KEY, stream text)');
    await slow.query('BEGIN');
    await slow.query("INSERT INTO naive (stream) VALUES ('slow')"); // takes position 1, not committed
    await fast.query("INSERT INTO naive (stream) VALUES ('fast')"); // takes 2 and commits
    const seen = (await fast.query<{ position: string }>('SELECT position FROM naive WHERE position > 0 ORDER BY position')).rows.map((r) => Number(r.position));
    assert.deepEqual(seen, [2], 'the poller sees 2 and moves its cursor past 1');
    await slow.query('COMMIT');
    const next = (await fast.query('SELECT position FROM naive WHERE position > 2')).rows;
    assert.deepEqual(next, [], 'position 1 is now committed, below the cursor: that poller never sees it');

    // The store: the slow append holds the appender lock until it commits, so the fast one waits.
    const args = (stream: string) => [stream, JSON.stringify(stream), NO_STREAM, ['KeySuspended'], ['"KeySuspended"'], [2], ['2026-01-01T00:00:00.000Z'], ['"2026-01-01T00:00:00.000Z"'], [JSON.stringify(event(1).data)]];
    await slow.query('BEGIN');
    await slow.query('SELECT rep_coach.append_events($1, $2, $3, $4, $5, $6, $7, $8, $9)', args('ledger-slow'));
    let fastDone = false;
    const fastAppend = store.append('ledger-fast', [event(2)], NO_STREAM).then((r) => ((fastDone = true), r));
    await sleep(300);
    assert.equal(fastDone, false, 'the fast append waits for the slow one to commit');
    assert.deepEqual(await store.readAll(0, 10), [], 'a poller sees nothing yet');
    await slow.query('COMMIT');
    assert.equal((await fastAppend).lastPosition, 2);
    assert.deepEqual((await store.readAll(0, 10)).map((e) => [e.position, e.stream]), [[1, 'ledger-slow'], [2, 'ledger-fast']]);
  } finally {
    await Promise.all([slow.end(), fast.end(), store.close()]);
  }
});

test('slow and fast commits interleaved: every subscriber and every poller sees every event exactly once, in the same order', { skip, timeout: 120_000 }, async () => {
  const url = await server!.freshDatabase();
  const writers = await Promise.all([0, 1, 2].map(() => PostgresEventStore.open(url, { poolSize: 4, pollMs: 200 })));
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  // Commits of the slow streams take 5-40 ms after their events got their positions.
  await raw.query(`CREATE FUNCTION slow_down() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(0.005 + random() * 0.035); RETURN NEW; END $$`);
  await raw.query(`CREATE TRIGGER slow_down AFTER INSERT ON rep_coach.events FOR EACH ROW WHEN (NEW.stream LIKE 'ledger-slow-%') EXECUTE FUNCTION slow_down()`);

  const subscribers: RecordedEvent[][] = [];
  const subscriptions = writers.map((store, i) => {
    const got: RecordedEvent[] = [];
    subscribers.push(got);
    return store.subscribe(0, (e) => got.push(e), (err) => assert.fail(`subscription ${i} dropped: ${String(err)}`));
  });
  let writing = true;
  const pollers = [1, 7].map(async (pageSize) => {
    const got: RecordedEvent[] = [];
    subscribers.push(got);
    let cursor = 0;
    // Stops after three empty reads that all began once every append had committed: an idle
    // count from while writers were still busy would end the loop before their last events.
    for (let idle = 0; idle < 3; ) {
      const done = !writing;
      const page = await writers[0]!.readAll(cursor, pageSize);
      if (page.length > 0) cursor = page.at(-1)!.position;
      got.push(...page);
      idle = page.length === 0 && done ? idle + 1 : 0;
      if (page.length === 0) await sleep(2);
    }
  });

  const ROUNDS = 20;
  const streams = ['slow-a', 'slow-b', 'slow-c', 'fast-a', 'fast-b', 'fast-c', 'fast-d'];
  let n = 0;
  await Promise.all(streams.map(async (name, i) => {
    const store = writers[i % writers.length]!;
    let revision = NO_STREAM;
    for (let r = 0; r < ROUNDS; r++) {
      const batch = Array.from({ length: 1 + (r % 3) }, () => event(n++));
      revision = (await store.append(`ledger-${name}`, batch, revision)).nextRevision;
    }
  }));
  writing = false;
  await Promise.all(pollers);
  const all = await writers[0]!.readAll(0, 100_000);
  const total = all.length;
  assert.equal(total, n, 'every appended event is in the ledger');
  for (const got of subscribers.slice(0, subscriptions.length)) {
    for (const deadline = Date.now() + 30_000; got.length < total && Date.now() < deadline; ) await sleep(50);
  }
  await Promise.all(subscriptions.map((s) => s.stop()));
  await raw.end();
  await Promise.all(writers.map((w) => w.close()));

  const expected = all.map((e) => `${e.position}:${e.stream}:${e.revision}`);
  assert.deepEqual(expected.map((_, i) => Number(expected[i]!.split(':')[0])), Array.from({ length: total }, (_, i) => i + 1), 'positions 1..N with no gap');
  for (const [i, got] of subscribers.entries()) {
    assert.deepEqual(got.map((e) => `${e.position}:${e.stream}:${e.revision}`), expected, `${i < subscriptions.length ? 'subscriber' : 'poller'} ${i} saw every event once, in order`);
  }
});
