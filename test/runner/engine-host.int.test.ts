// The engine host's warm engine processes and the stage directories their decoders get (a stage
// holds a link to the video being decoded: it must go with the process, however it ends).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngineHost } from '../../src/runner/engine-host.js';
import { removeDir } from '../support/remove-dir.js';

const stagesOf = (pid: number) => readdirSync(tmpdir()).filter((n) => n.startsWith(`rc-engine-stages-${pid}-`));

test('a host removes the stage directories of hosts that are gone, and only those', async (t) => {
  // A pid that was just used and has ended: its owner is dead.
  const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  const deadPid = Number(dead.stdout.trim());
  const orphan = mkdtempSync(join(tmpdir(), `rc-engine-stages-${deadPid}-`));
  const living = mkdtempSync(join(tmpdir(), `rc-engine-stages-${process.ppid}-`));
  t.after(() => removeDir(living));
  const host = createEngineHost();
  t.after(() => host.close());
  assert.ok(!existsSync(orphan), 'the dead host\'s stages are removed');
  assert.ok(existsSync(living), 'a living host\'s stages are left alone');
});

test('warm engine processes each get a stage directory, removed when they end (closed or killed)', async (t) => {
  const host = createEngineHost();
  t.after(() => host.close());
  host.warm(2);
  assert.equal(stagesOf(process.pid).length, 2, 'one per engine process');
  // A hostile file ends at the container check: this waits for a process to answer, nothing more.
  const dir = mkdtempSync(join(tmpdir(), 'engine-host-test-'));
  t.after(() => removeDir(dir));
  await assert.rejects(host.analyze({ videoPath: join(dir, 'missing.mp4'), exerciseId: 'squat' }));
  // An aborted analysis kills its engine process: its stage directory goes with it.
  const ctrl = new AbortController();
  const running = host.analyze({ videoPath: join(dir, 'missing.mp4'), exerciseId: 'squat' }, ctrl.signal).catch(() => undefined);
  ctrl.abort();
  await running;
  await host.close();
  assert.deepEqual(stagesOf(process.pid), [], 'none left once the processes have ended');
});

test('a job may reuse the poses of the same bytes for the same partner: the same result and pose track, without decoding', { timeout: 300_000 }, async (t) => {
  const { shortClip } = await import('../../bench/support/clip.js');
  const clip = await shortClip(2);
  const dir = mkdtempSync(join(tmpdir(), 'engine-host-test-'));
  t.after(() => removeDir(dir));
  const first = join(dir, 'first.mp4'), second = join(dir, 'second.mp4');
  writeFileSync(first, clip.bytes);
  writeFileSync(second, clip.bytes);
  const host = createEngineHost();
  t.after(() => host.close());
  const input = (videoPath: string) => ({ videoPath, exerciseId: clip.exercise });
  const keep = { scope: 'key_a', forMs: 60_000 };
  const a = await host.analyzeForJob(input(first), undefined, keep);
  const b = await host.analyzeForJob(input(second), undefined, keep);
  const other = await host.analyzeForJob(input(second), undefined, { scope: 'key_b', forMs: 60_000 });
  assert.deepEqual([a.timings.posesReused, b.timings.posesReused, other.timings.posesReused], [false, true, false]);
  assert.equal(JSON.stringify(b.result), JSON.stringify(a.result), 'the same result, byte for byte');
  assert.ok(gunzipSync(b.poseGzip).equals(gunzipSync(a.poseGzip)), 'the same pose track');
  assert.equal(JSON.stringify(other.result), JSON.stringify(a.result));
});
