import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PMap } from '../../src/commands/persistent-map.js';

test('every version keeps reading what it held, whichever version is read or changed in between', () => {
  const op = fc.record({ from: fc.nat(), key: fc.constantFrom('a', 'b', 'c', 'constructor', '__proto__'), value: fc.option(fc.nat(9)) });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 30 }), (ops, reads) => {
      const versions = [PMap.empty<number>()];
      const models = [new Map<string, number>()];
      for (const o of ops) {
        const i = o.from % versions.length;
        const model = new Map(models[i]);
        if (o.value === null) model.delete(o.key);
        else model.set(o.key, o.value);
        versions.push(o.value === null ? versions[i]!.delete(o.key) : versions[i]!.set(o.key, o.value));
        models.push(model);
      }
      for (const r of [...reads, ...versions.keys()]) {
        const i = r % versions.length;
        assert.deepEqual(new Map(versions[i]!.entries()), models[i]);
        assert.equal(versions[i]!.size, models[i]!.size);
        for (const k of ['a', 'constructor', '__proto__']) assert.equal(versions[i]!.get(k), models[i]!.get(k));
      }
    }),
  );
});

test('a change to the newest version does not grow with the size', () => {
  let m = PMap.empty<number>();
  for (let i = 0; i < 100_000; i++) m = m.set(`k${i}`, i);
  const t0 = performance.now();
  for (let i = 0; i < 10_000; i++) m = m.set(`n${i}`, i).delete(`k${i}`);
  const perChange = (performance.now() - t0) / 20_000;
  // A copy of 100,000 entries takes milliseconds; a change in place well under 50 µs even on a loaded machine.
  assert.ok(perChange < 0.05, `${perChange.toFixed(4)} ms per change`);
  assert.equal(m.size, 100_000);
});
