// The vendored ONNX models are stored packed, losslessly: the file's even bytes, then its odd
// bytes, brotli-compressed (`NAME.onnx.planes.br`). The landmark model's weights are float16, whose
// high bytes (sign, exponent) repeat a lot while the low bytes look random; split into two planes
// they compress to 86% of the file, under the repository's 5 MiB limit per file, where brotli on the
// interleaved bytes reaches only 89%. The unpacked bytes are checked against the SHA-256 recorded
// in `models.json` beside them, so a damaged or swapped file fails to load instead of mis-reading
// every pose. `scripts/pack-onnx.ts` writes both from a converted `.onnx`.
//
// Unpacking took ~100 ms of CPU per model in every engine process's start (issue 22: a freshly
// started service must end its first jobs in the same 20 s), so the unpacked bytes are kept on disk
// after first use (MODEL_CACHE_DIR, or a directory of the system's temp directory), named by their
// SHA-256 and checked against the manifest at every read like the packed ones: a cache file that is
// damaged, swapped or half-written is unpacked again, never used.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** Where unpacked models are kept: one directory per user, so none writes where another reads. */
export const modelCacheDir = () => process.env.MODEL_CACHE_DIR || join(tmpdir(), `rep-coach-models-${process.getuid?.() ?? 'user'}`);

/**
 * The ONNX bytes of model `name` (e.g. "blazepose-full") in `dir`, verified against the manifest:
 * from the cache when a file there has the manifest's hash, else unpacked and then cached.
 */
export function readModel(dir: string, name: string, cacheDir = modelCacheDir()): Uint8Array {
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as ModelManifest;
  const want = manifest[name];
  if (!want) throw new Error(`${name} is not listed in ${join(dir, MANIFEST)}`);
  const cached = join(cacheDir, `${name}-${want.sha256}.onnx`);
  try {
    const bytes = readFileSync(cached);
    if (sha256(bytes) === want.sha256) return bytes;
  } catch {
    // not cached yet, or unreadable: unpacked below
  }
  const onnx = unpackModel(readFileSync(join(dir, name + PACKED_SUFFIX)));
  const got = sha256(onnx);
  if (got !== want.sha256) throw new Error(`${name}${PACKED_SUFFIX} unpacks to sha256 ${got}, not the ${want.sha256} recorded in ${MANIFEST}`);
  try {
    // Written whole under a name of this process's, then renamed: two engines starting at once
    // never read each other's half-written file.
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const partial = `${cached}.${process.pid}.partial`;
    writeFileSync(partial, onnx, { mode: 0o600 });
    renameSync(partial, cached);
  } catch {
    // a read-only or full disk: each start unpacks, as before
  }
  return onnx;
}
