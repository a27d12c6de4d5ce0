// Loads the vendored BlazePose ONNX models (detector + full landmark model, stored packed: see
// packed-model.ts) on onnxruntime-node's CPU provider, one thread each: jobs run in parallel on a
// 2-core machine, and extra threads per session only contend with them.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { ProviderUnavailableError } from '../engine.js';
import { DETECTOR_SIZE, ANCHOR_COUNT, type DetectorModel } from './detector.js';
import { LANDMARK_SIZE, type LandmarkModel } from './landmarks.js';
import { readModel } from './packed-model.js';

const here = dirname(fileURLToPath(import.meta.url));
export const defaultModelDir = join(here, '..', '..', '..', 'vendor', 'blazepose');
export const modelName = 'blazepose-full-onnx';

export interface PoseModels { detector: DetectorModel; landmarks: LandmarkModel }

const sessionOptions: ort.InferenceSession.SessionOptions = {
  executionProviders: ['cpu'],
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  // No memory pattern (issue 22, memory per job): with it, onnxruntime plans one block for all of a
  // run's intermediate tensors and its arena rounds that block up to a power of two, held for the
  // process's life; without it each tensor comes from the arena as the run needs it and goes back
  // when its last reader is done, so the arena peaks at what is live at once: 9 MB less after
  // both models have run (83-84 against 74-75 MB over the process's start, three runs each), the
  // same CPU per landmark run within the noise, and the same outputs bit for bit (planning where
  // tensors live changes no arithmetic).
  enableMemPattern: false,
};

/** A session for model `name`; its bytes are referenced by nothing once this returns. */
async function createSession(dir: string, name: string): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(readModel(dir, name), sessionOptions);
}

export async function loadPoseModels(dir = defaultModelDir): Promise<PoseModels> {
  let det: ort.InferenceSession, lm: ort.InferenceSession;
  try {
    // One after the other: each model's unpacked bytes and the copies onnxruntime makes while
    // building its session are held only while that session is made (issue 22: ~12 MB less at
    // the engine process's peak than making both at once).
    det = await createSession(dir, 'blazepose-detector');
    lm = await createSession(dir, 'blazepose-full');
  } catch (e) {
    throw new ProviderUnavailableError(`pose model could not be loaded: ${(e as Error).message}`);
  }
  const detector: DetectorModel = {
    async run(input) {
      const out = await det.run({ input: new ort.Tensor('float32', input, [1, DETECTOR_SIZE, DETECTOR_SIZE, 3]) });
      const data = out.person!.data as Float32Array;
      if (data.length !== ANCHOR_COUNT * 13) throw new Error(`detector output has ${data.length} values`);
      return data;
    },
  };
  const landmarks: LandmarkModel = {
    async run(input) {
      const out = await lm.run({ input_1: new ort.Tensor('float32', input, [1, LANDMARK_SIZE, LANDMARK_SIZE, 3]) });
      return { landmarks: out.ld_3d!.data as Float32Array, presence: (out.output_poseflag!.data as Float32Array)[0]! };
    },
  };
  try {
    // One warm-up run each, so the first real frame does not pay for buffer planning.
    await detector.run(new Float32Array(DETECTOR_SIZE * DETECTOR_SIZE * 3));
    await landmarks.run(new Float32Array(LANDMARK_SIZE * LANDMARK_SIZE * 3));
  } catch (e) {
    throw new ProviderUnavailableError(`pose model does not run: ${(e as Error).message}`);
  }
  // The models' bytes (12 MB) are garbage now, but V8 sees no reason to collect soon: where it
  // may (an engine process, started with --expose-gc), collect them before the first job.
  (globalThis as { gc?: () => void }).gc?.();
  return { detector, landmarks };
}
