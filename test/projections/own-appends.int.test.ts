// The projection of this process's own appends from memory (projections/runner.ts catchUpOwn,
// EventStore.committedAfter): what the process wrote is projected without reading the ledger
// back, and whatever it cannot vouch for (another writer's events in between, a full catch-up
// asked meanwhile) is read from the ledger as before. Two stores on one ledger file stand for two
// processes; one read-model file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_STREAM } from '../../src/events/store/port.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { checkpointOf, createProjector, openReadModels } from '../../src/projections/runner.js';
import { keyById } from '../../src/projections/identity.js';

const at = '2026-01-01T00:00:00.000Z';
const issued = (keyId: string) => ({ type: 'KeyIssued' as const, data: { keyId, partnerId: `p-${keyId}`, partnerName: keyId, keyHash: `hash-${keyId}`, limit: null, at } });

test("catchUpOwn projects this process's appends from memory, and reads the ledger when another writer's come first or a full catch-up joins", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-own-'));
  const ours = new SqliteEventStore(join(dir, 'ledger.db'));
  const other = new SqliteEventStore(join(dir, 'ledger.db'));
  const db = openReadModels(join(dir, 'read-models.db'));
  t.after(async () => {
    await ours.close();
    await other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let reads = 0;
  const readAll = ours.readAll.bind(ours);
  ours.readAll = (after, limit) => ((reads += 1), readAll(after, limit));
  const projector = createProjector(ours, () => db);

  const own = await ours.append('ledger-k1', [issued('k1')], NO_STREAM);
  await projector.catchUpOwn();
  assert.ok(keyById(db, 'k1'));
  assert.equal(checkpointOf(db), own.lastPosition);
  assert.equal(reads, 0, 'its own events came from memory');

  // Another writer's event lies between the checkpoint and ours: read from the ledger, both projected.
  await other.append('ledger-k2', [issued('k2')], NO_STREAM);
  const next = await ours.append('ledger-k3', [issued('k3')], NO_STREAM);
  await projector.catchUpOwn();
  assert.ok(keyById(db, 'k2') && keyById(db, 'k3'));
  assert.equal(checkpointOf(db), next.lastPosition);
  assert.ok(reads > 0);

  // Ours right after the checkpoint, then another writer's: a full catch-up asked in the same turn
  // turns the pending drain into a full one, so the other writer's event is projected too.
  await ours.append('ledger-k4', [issued('k4')], NO_STREAM);
  const last = await other.append('ledger-k5', [issued('k5')], NO_STREAM);
  await Promise.all([projector.catchUpOwn(), projector.catchUp()]);
  assert.ok(keyById(db, 'k5'));
  assert.equal(checkpointOf(db), last.lastPosition);
});
