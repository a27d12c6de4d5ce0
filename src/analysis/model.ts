// Loads MoveNet Lightning from vendor/ on the tfjs wasm backend. Nothing is fetched from the
// network: the weights ship in the repository and a tf.io handler reads them from disk.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { ProviderUnavailableError } from './engine.js';

const here = dirname(fileURLToPath(import.meta.url));
export const defaultModelDir = join(here, '..', '..', 'vendor', 'movenet-lightning');
export const modelName = 'movenet-lightning';
export const inputSize = 192;

/** A tf.io handler over a local graph-model json + its single weights file. */
export function localModelHandler(dir: string, name: string): tf.io.IOHandler {
  return {
    async load() {
      const json = JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8')) as {
        modelTopology: object; format?: string; generatedBy?: string; convertedBy?: string | null;
        signature?: object; weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
      };
      const specs: tf.io.WeightsManifestEntry[] = [];
      const buffers: Buffer[] = [];
      for (const group of json.weightsManifest) {
        specs.push(...group.weights);
        for (const p of group.paths) buffers.push(await readFile(join(dir, p)));
      }
      const all = Buffer.concat(buffers);
      return {
        modelTopology: json.modelTopology,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        signature: json.signature,
        weightSpecs: specs,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      };
    },
  };
}

let backendReady: Promise<void> | undefined;

/** The wasm backend is process-wide in tfjs, so it is initialised once. */
function initBackend(): Promise<void> {
  backendReady ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    // Threads fail in Node (blob worker URL), so the SIMD single-thread binary is forced.
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    setWasmPaths(wasmDir + '/');
    const ok = await tf.setBackend('wasm');
    if (!ok) throw new Error('the tfjs wasm backend failed to initialise');
    await tf.ready();
  })();
  return backendReady;
}

export async function loadMoveNet(dir = defaultModelDir): Promise<GraphModel> {
  try {
    await initBackend();
    const model = await loadGraphModel(localModelHandler(dir, modelName));
    // Warm-up so the first real frame does not pay for kernel set-up.
    const warm = tf.zeros([1, inputSize, inputSize, 3], 'int32');
    const out = model.execute(warm) as tf.Tensor;
    await out.data();
    tf.dispose([warm, out]);
    return model;
  } catch (e) {
    backendReady = undefined;
    throw new ProviderUnavailableError(`pose model could not be loaded: ${(e as Error).message}`);
  }
}
