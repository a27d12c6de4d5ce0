// A node's read models follow what OTHER nodes append (KurrentDB deployment: one read-model file per
// node). Simulated with two "nodes" on one SQLite ledger, each with its own read models, and a
// subscription the test fires by hand, so it runs without a KurrentDB server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLedger } from '../../src/commands/handle.js';
import { decideKey } from '../../src/commands/keys.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { followStore } from '../../src/projections/follow.js';
import { keyById } from '../../src/projections/identity.js';
import { checkpointOf, createProjector, openReadModels } from '../../src/projections/runner.js';
import { until } from '../support/engines.js';

function twoNodes(t: { after(fn: () => void | Promise<void>): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'rc-follow-'));
  const node = (name: string) => {
    const store = new SqliteEventStore(join(dir, 'ledger.db'));
    const db = openReadModels(join(dir, `read-models-${name}.db`));
    const projector = createProjector(store, () => db);
    return { store, db, projector, ledger: createLedger(store, () => projector.catchUp()) };
  };
  const a = node('a');
  const b = node('b');
  // The subscription B would hold on KurrentDB: the test delivers events and drops it at will.
  const subscriptions: { from: number; deliver(e: RecordedEvent): void; drop(err: Error): void; stopped: boolean }[] = [];
  const subscribable = {
    subscribe(from: number, onEvent: (e: RecordedEvent) => void, onError: (err: unknown) => void) {
      const sub = { from, deliver: onEvent, drop: onError, stopped: false };
      subscriptions.push(sub);
      return { stop: async () => void (sub.stopped = true) };
    },
  };
  const warnings: string[] = [];
  const follower = followStore(subscribable, b.projector, () => b.db, { warn: (_o, m) => warnings.push(m) }, 10);
  t.after(async () => {
    await follower.stop();
    for (const n of [a, b]) {
      await n.store.close();
      n.db.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return { a, b, subscriptions, warnings };
}

const issue = (keyId: string) => (s: Parameters<typeof decideKey>[1]) =>
  decideKey({ type: 'IssueKey', keyId, partnerId: `p-${keyId}`, partnerName: keyId, keyHash: `hash-${keyId}`, limit: null, now: '2026-01-01T00:00:00.000Z' }, s);

test('a key issued on another node reaches this node\'s read models when the subscription delivers it', async (t) => {
  const { a, b, subscriptions } = twoNodes(t);
  await a.ledger.handle('k1', issue('k1'));
  assert.ok(keyById(a.db, 'k1'), 'the writing node sees its own write at once');
  assert.equal(keyById(b.db, 'k1'), undefined, 'the other node has not heard of it yet');
  const [event] = await a.store.readAll(0, 10);
  subscriptions[0]!.deliver(event!);
  await until(async () => keyById(b.db, 'k1'));
  assert.equal(checkpointOf(b.db), checkpointOf(a.db), 'the checkpoint moved with the rows');
});

test('a dropped subscription resubscribes from the checkpoint and catches up what was appended meanwhile', async (t) => {
  const { a, b, subscriptions, warnings } = twoNodes(t);
  await a.ledger.handle('k1', issue('k1'));
  const first = (await a.store.readAll(0, 10))[0]!;
  subscriptions[0]!.deliver(first);
  await until(async () => keyById(b.db, 'k1'));
  subscriptions[0]!.drop(new Error('server went away'));
  await a.ledger.handle('k2', issue('k2'));
  await until(async () => (subscriptions.length === 2 ? true : undefined));
  assert.equal(subscriptions[0]!.stopped, true);
  assert.equal(subscriptions[1]!.from, first.position, 'resubscribed from the last applied position');
  await until(async () => keyById(b.db, 'k2'));
  assert.match(warnings.join('\n'), /dropped/);
});
