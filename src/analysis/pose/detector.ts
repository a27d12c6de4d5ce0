// BlazePose's person detector: a 224x224 SSD over the letterboxed frame. Each of its 2254 anchors
// predicts a score, a box and four keypoints: hip centre, a full-body alignment point (whose
// distance from the hip centre is the body's radius, and whose direction is the body's "up"),
// shoulder centre and an upper-body alignment point. The ROI for the landmark model comes from
// the first two, as in MediaPipe's pose_detection_to_roi.
import { fromRoi, roiFromAlignment, type Roi } from './roi.js';

export const DETECTOR_SIZE = 224;
/** MediaPipe's pose detector normalises pixels to -1..1. */
export const DETECTOR_RANGE = { scale: 2 / 255, offset: -1 };
const MIN_SCORE = 0.5;
const NMS_IOU = 0.3;

export interface Detection {
  score: number;
  /** Axis-aligned box in frame pixels. */
  box: { xMin: number; yMin: number; xMax: number; yMax: number };
  /** The four keypoints in frame pixels: hip centre, body alignment, shoulder centre, upper alignment. */
  keypoints: { x: number; y: number }[];
}

/** SSD anchor centres (0..1) for strides 8, 16, 32, 32, 32; two anchors per layer and cell. */
export function createAnchors(size = DETECTOR_SIZE): Float32Array {
  const strides = [8, 16, 32, 32, 32];
  const xy: number[] = [];
  for (let layer = 0; layer < strides.length;) {
    let last = layer, count = 0;
    while (last < strides.length && strides[last] === strides[layer]) { count += 2; last++; }
    const cells = Math.ceil(size / strides[layer]!);
    for (let y = 0; y < cells; y++) for (let x = 0; x < cells; x++) for (let a = 0; a < count; a++) xy.push((x + 0.5) / cells, (y + 0.5) / cells);
    layer = last;
  }
  return Float32Array.from(xy);
}

const anchors = createAnchors();
export const ANCHOR_COUNT = anchors.length / 2;

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

function iou(a: Detection['box'], b: Detection['box']): number {
  const w = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
  const h = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  const area = (r: Detection['box']) => (r.xMax - r.xMin) * (r.yMax - r.yMin);
  return inter / (area(a) + area(b) - inter);
}

/**
 * Decodes the raw [2254 x 13] output (logit, then box cx, cy, w, h and 4 keypoints, offsets in
 * input pixels from the anchor) into frame-pixel detections, with MediaPipe's weighted NMS: each
 * kept detection is the score-weighted mean of the candidates it suppresses, which steadies it.
 */
export function decodeDetections(raw: Float32Array, input: Roi, minScore = MIN_SCORE): Detection[] {
  const cand: { score: number; v: Float32Array }[] = [];
  const thr = Math.log(minScore / (1 - minScore));
  for (let i = 0; i < ANCHOR_COUNT; i++) {
    const o = i * 13;
    if (raw[o]! < thr) continue;
    const v = new Float32Array(12);
    const ax = anchors[i * 2]!, ay = anchors[i * 2 + 1]!;
    for (let k = 0; k < 12; k += 2) {
      const isSize = k === 2;
      v[k] = raw[o + 1 + k]! / DETECTOR_SIZE + (isSize ? 0 : ax);
      v[k + 1] = raw[o + 2 + k]! / DETECTOR_SIZE + (isSize ? 0 : ay);
    }
    cand.push({ score: sigmoid(raw[o]!), v });
  }
  cand.sort((a, b) => b.score - a.score);
  const toPx = (u: number, v: number) => fromRoi(input, u, v);
  const boxOf = (v: Float32Array) => {
    const p0 = toPx(v[0]! - v[2]! / 2, v[1]! - v[3]! / 2), p1 = toPx(v[0]! + v[2]! / 2, v[1]! + v[3]! / 2);
    return { xMin: Math.min(p0.x, p1.x), yMin: Math.min(p0.y, p1.y), xMax: Math.max(p0.x, p1.x), yMax: Math.max(p0.y, p1.y) };
  };
  const out: Detection[] = [];
  const used = new Array<boolean>(cand.length).fill(false);
  for (let i = 0; i < cand.length; i++) {
    if (used[i]) continue;
    const box = boxOf(cand[i]!.v);
    const acc = new Float64Array(12);
    let wsum = 0;
    for (let j = i; j < cand.length; j++) {
      if (used[j] || iou(box, boxOf(cand[j]!.v)) < NMS_IOU) continue;
      used[j] = true;
      const w = cand[j]!.score;
      for (let k = 0; k < 12; k++) acc[k] = acc[k]! + cand[j]!.v[k]! * w;
      wsum += w;
    }
    const v = Float32Array.from(acc, (a) => a / wsum);
    const keypoints = [0, 1, 2, 3].map((k) => toPx(v[4 + k * 2]!, v[5 + k * 2]!));
    out.push({ score: cand[i]!.score, box: boxOf(v), keypoints });
  }
  return out;
}

/** The landmark model's ROI for a detection: hip centre, radius to the alignment point, x1.25. */
export function detectionRoi(d: Detection): Roi {
  return roiFromAlignment(d.keypoints[0]!, d.keypoints[1]!);
}

/**
 * The most prominent person: large (body radius relative to the frame) and central, weighted by
 * the detector's confidence. Ranking by score alone flips between people from frame to frame.
 * With a previous ROI (re-detection inside a shot), overlap with it wins over prominence.
 */
export function pickProminent(dets: readonly Detection[], width: number, height: number, previous?: Roi | null): Detection | undefined {
  const diag = Math.hypot(width, height);
  const prominence = (d: Detection) => {
    const roi = detectionRoi(d);
    const off = Math.hypot(roi.cx - width / 2, roi.cy - height / 2) / diag;
    return d.score * (roi.size / Math.max(width, height)) * (1 - off);
  };
  const nearPrevious = (d: Detection) => {
    if (!previous) return false;
    const roi = detectionRoi(d);
    return Math.hypot(roi.cx - previous.cx, roi.cy - previous.cy) < 0.5 * previous.size;
  };
  const tracked = dets.filter(nearPrevious);
  const pool = tracked.length ? tracked : dets;
  let best: Detection | undefined, bestValue = -Infinity;
  for (const d of pool) {
    const v = prominence(d);
    if (v > bestValue) { bestValue = v; best = d; }
  }
  return best;
}

/** The detector network: letterboxed NHWC input in, raw [2254 x 13] output. */
export interface DetectorModel { run(input: Float32Array<ArrayBuffer>): Promise<Float32Array> }
