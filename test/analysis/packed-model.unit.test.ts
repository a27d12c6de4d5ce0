// The vendored models are stored packed (byte planes + brotli, packed-model.ts): packing is
// lossless, a damaged pack or manifest fails the load, and the committed packs unpack to the bytes
// whose SHA-256 models.json records. The unpacked bytes are cached on disk and checked the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { defaultModelDir } from '../../src/analysis/pose/models.js';
import { MANIFEST, PACKED_SUFFIX, packModel, readModel, sha256, unpackModel } from '../../src/analysis/pose/packed-model.js';

test('packing is lossless for any bytes, odd lengths included (property)', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
    assert.deepEqual(unpackModel(packModel(bytes)), bytes);
  }), { numRuns: 200 });
});

test('the vendored models unpack to the recorded bytes, and every file stays under 5 MiB', () => {
  for (const name of ['blazepose-detector', 'blazepose-full']) {
    const onnx = readModel(defaultModelDir, name);
    const want = JSON.parse(readFileSync(join(defaultModelDir, MANIFEST), 'utf8'))[name];
    assert.equal(onnx.length, want.bytes);
    assert.ok(statSync(join(defaultModelDir, name + PACKED_SUFFIX)).size < 5 * 1024 * 1024, name);
  }
});

test('a damaged pack fails to load with a message naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'packed-model-'));
  try {
    const onnx = Buffer.from('not really onnx, but bytes all the same');
    writeFileSync(join(dir, `m${PACKED_SUFFIX}`), packModel(onnx));
    writeFileSync(join(dir, MANIFEST), JSON.stringify({ m: { sha256: sha256(onnx), bytes: onnx.length } }));
    assert.deepEqual(Buffer.from(readModel(dir, 'm', join(dir, 'cache-a'))), onnx);
    // Another model's bytes under this name: the hash differs (with nothing cached yet).
    writeFileSync(join(dir, `m${PACKED_SUFFIX}`), packModel(Buffer.from('something else')));
    assert.throws(() => readModel(dir, 'm', join(dir, 'cache-b')), /unpacks to sha256 .* not the/);
    assert.throws(() => readModel(dir, 'absent', join(dir, 'cache-b')), /not listed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unpacked models are cached on disk, and a cached file is used only when it has the recorded hash', () => {
  const dir = mkdtempSync(join(tmpdir(), 'packed-model-'));
  const cache = join(dir, 'cache');
  try {
    const onnx = Buffer.from('the model bytes, unpacked once');
    writeFileSync(join(dir, `m${PACKED_SUFFIX}`), packModel(onnx));
    writeFileSync(join(dir, MANIFEST), JSON.stringify({ m: { sha256: sha256(onnx), bytes: onnx.length } }));
    assert.deepEqual(Buffer.from(readModel(dir, 'm', cache)), onnx);
    const [file, ...others] = readdirSync(cache);
    assert.equal(file, `m-${sha256(onnx)}.onnx`, 'named by the hash it must have');
    assert.deepEqual(others, [], 'nothing half-written left beside it');
    // Cached: the pack is not read again (a pack of other bytes would fail the load, as above).
    writeFileSync(join(dir, `m${PACKED_SUFFIX}`), packModel(Buffer.from('something else')));
    assert.deepEqual(Buffer.from(readModel(dir, 'm', cache)), onnx);
    // A cached file with other bytes is never used: the pack is unpacked and checked again.
    writeFileSync(join(cache, file!), 'tampered');
    assert.throws(() => readModel(dir, 'm', cache), /unpacks to sha256 .* not the/);
    writeFileSync(join(dir, `m${PACKED_SUFFIX}`), packModel(onnx));
    assert.deepEqual(Buffer.from(readModel(dir, 'm', cache)), onnx);
    assert.deepEqual(readFileSync(join(cache, file!)), onnx, 'and the cache is mended');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
