// `npx tsx scripts/pack-onnx.ts vendor/blazepose/NAME.onnx ...`: packs converted models the way the
// engine loads them (src/analysis/pose/packed-model.ts): writes NAME.onnx.planes.br beside each,
// records its SHA-256 in models.json, checks the pack unpacks to the same bytes, and removes the
// .onnx (too large to commit; .gitignore keeps a regenerated one out).
import { readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MANIFEST, PACKED_SUFFIX, packModel, sha256, unpackModel, type ModelManifest } from '../src/analysis/pose/packed-model.js';

const files = process.argv.slice(2);
if (!files.length || files.some((f) => !f.endsWith('.onnx'))) {
  console.error('usage: npx tsx scripts/pack-onnx.ts DIR/NAME.onnx ...');
  process.exit(2);
}
for (const file of files) {
  const dir = dirname(file), name = basename(file, '.onnx');
  const onnx = readFileSync(file);
  const packed = packModel(onnx);
  if (sha256(unpackModel(packed)) !== sha256(onnx)) throw new Error(`${file}: the pack does not unpack to the same bytes`);
  writeFileSync(join(dir, name + PACKED_SUFFIX), packed);
  const manifestPath = join(dir, MANIFEST);
  const manifest: ModelManifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : {};
  manifest[name] = { sha256: sha256(onnx), bytes: onnx.length };
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  rmSync(file);
  console.log(`${file}: ${onnx.length} bytes -> ${name}${PACKED_SUFFIX} ${packed.length} bytes`);
}
