// The vendored ONNX models are stored packed, losslessly: the file's even bytes, then its odd
// bytes, brotli-compressed (`NAME.onnx.planes.br`). The landmark model's weights are float16, whose
// high bytes (sign, exponent) repeat a lot while the low bytes look random; split into two planes
// they compress to 86% of the file, under the repository's 5 MiB limit per file, where brotli on the
// interleaved bytes reaches only 89%. The unpacked bytes are checked against the SHA-256 recorded
// in `models.json` beside them, so a damaged or swapped file fails to load instead of mis-reading
// every pose. `scripts/pack-onnx.ts` writes both from a converted `.onnx`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

export const PACKED_SUFFIX = '.onnx.planes.br';
export const MANIFEST = 'models.json';

/** Manifest: model name -> SHA-256 (hex) of its unpacked `.onnx` bytes. */
export type ModelManifest = Record<string, { sha256: string; bytes: number }>;

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export function packModel(onnx: Uint8Array): Buffer {
  const half = Math.ceil(onnx.length / 2);
  const planes = Buffer.alloc(onnx.length);
  for (let i = 0; i < onnx.length; i++) planes[(i & 1) === 0 ? i >> 1 : half + (i >> 1)] = onnx[i]!;
  return brotliCompressSync(planes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: onnx.length },
  });
}

export function unpackModel(packed: Uint8Array): Uint8Array {
  const planes = brotliDecompressSync(packed);
  const half = Math.ceil(planes.length / 2);
  const onnx = new Uint8Array(planes.length);
  for (let i = 0; i < onnx.length; i++) onnx[i] = planes[(i & 1) === 0 ? i >> 1 : half + (i >> 1)]!;
  return onnx;
}

/** The ONNX bytes of model `name` (e.g. "blazepose-full") in `dir`, verified against the manifest. */
export function readModel(dir: string, name: string): Uint8Array {
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as ModelManifest;
  const want = manifest[name];
  if (!want) throw new Error(`${name} is not listed in ${join(dir, MANIFEST)}`);
  const onnx = unpackModel(readFileSync(join(dir, name + PACKED_SUFFIX)));
  const got = sha256(onnx);
  if (got !== want.sha256) throw new Error(`${name}${PACKED_SUFFIX} unpacks to sha256 ${got}, not the ${want.sha256} recorded in ${MANIFEST}`);
  return onnx;
}
