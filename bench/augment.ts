// Variants of a clip that a partner's users could have filmed instead: mirrored, farther away,
// closer, with the phone tilted, hand-held and shaking, in a dim room, faster or slower. A robust engine
// counts a variant the same as the original, so `npm run eval -- --tuning --augment all` measures
// generalisation on clips we may look at without touching the holdout (bench/holdout.json).
// Pictures are changed after decoding and before the pose model; speed is changed by sampling the
// video at another rate and presenting the frames at the engine's own. The `pose:` variants change
// the poses the model found instead (cached poses, seconds for the whole set, no model run): what
// the counter and the camera angle must not lean on, whatever the model does with the picture.
import type { Frame } from '../src/analysis/decode.js';
import type { ExtractedPoses } from '../src/analysis/index.js';
import { KP, KP_COUNT, type PackedPose } from '../src/analysis/pose.js';
import { seededRandom as random } from './support/random.js';

export interface Augmentation {
  /** Named in reports and in the pose cache's key. */
  name: string;
  what: string;
  /** The picture as filmed differently (a new frame; the decoder reuses its buffer). */
  frame?: (f: Frame) => Frame;
  /** Playback speed: 1.4 means the person moves 1.4x faster. */
  speed?: number;
  /** The poses as found otherwise: applied to the clip's poses as filmed (cached or extracted). */
  poses?: (x: ExtractedPoses) => ExtractedPoses;
}

/** Output pixel (x, y) reads the source at inverse(x, y); outside the picture is mid grey. */
function warp(f: Frame, inverse: (x: number, y: number) => [number, number]): Frame {
  const { width: w, height: h, rgb } = f;
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const [u, v] = inverse(x, y);
      const o = (y * w + x) * 3;
      if (u < 0 || v < 0 || u > w - 1 || v > h - 1) {
        out[o] = out[o + 1] = out[o + 2] = 128;
        continue;
      }
      // Bilinear: a nearest-pixel warp adds jagged edges a real camera would not.
      const x0 = Math.floor(u), y0 = Math.floor(v);
      const x1 = Math.min(w - 1, x0 + 1), y1 = Math.min(h - 1, y0 + 1);
      const ax = u - x0, ay = v - y0;
      for (let c = 0; c < 3; c++) {
        const a = rgb[(y0 * w + x0) * 3 + c]!, b = rgb[(y0 * w + x1) * 3 + c]!;
        const d = rgb[(y1 * w + x0) * 3 + c]!, e = rgb[(y1 * w + x1) * 3 + c]!;
        out[o + c] = Math.round((a * (1 - ax) + b * ax) * (1 - ay) + (d * (1 - ax) + e * ax) * ay);
      }
    }
  }
  return { ...f, rgb: out };
}

/** Scale by `s` and turn by `deg` about the centre, then shift by (dx, dy) pixels. */
function similarity(f: Frame, s: number, deg: number, dx = 0, dy = 0): Frame {
  const cx = (f.width - 1) / 2, cy = (f.height - 1) / 2;
  const r = (deg * Math.PI) / 180, cos = Math.cos(r), sin = Math.sin(r);
  return warp(f, (x, y) => {
    const px = (x - cx - dx) / s, py = (y - cy - dy) / s;
    return [cx + cos * px + sin * py, cy - sin * px + cos * py];
  });
}

export const augmentations: Augmentation[] = [
  { name: 'mirror', what: 'filmed from the mirror side', frame: (f) => warp(f, (x, y) => [f.width - 1 - x, y]) },
  { name: 'far', what: 'camera twice as far: the person at 60% of the size', frame: (f) => similarity(f, 0.6, 0) },
  { name: 'close', what: 'filmed closer: 1.35x, so feet or hands may leave the frame', frame: (f) => similarity(f, 1.35, 0) },
  { name: 'tilt', what: 'phone tilted by 8 degrees', frame: (f) => similarity(f, 1, 8) },
  {
    name: 'handheld', what: 'hand-held: the picture drifts and sways by up to 6% of the frame',
    frame: (f) => {
      const t = f.timeMs / 1000, a = 0.06 * Math.min(f.width, f.height);
      return similarity(f, 1.05, 2 * Math.sin(2 * Math.PI * t / 3.1), a * Math.sin(2 * Math.PI * t / 1.7), a * Math.sin(2 * Math.PI * t / 2.3 + 1));
    },
  },
  {
    name: 'dim', what: 'a dim room: a third of the contrast, darker',
    frame: (f) => ({ ...f, rgb: f.rgb.map((v) => 20 + Math.round(v * 0.35)) }),
  },
  {
    name: 'rough', what: 'all at once: farther (75%), hand-held, dim, and 1.2x faster',
    frame: (f) => {
      const t = f.timeMs / 1000, a = 0.04 * Math.min(f.width, f.height);
      const moved = similarity(f, 0.75, 2 * Math.sin(2 * Math.PI * t / 3.1), a * Math.sin(2 * Math.PI * t / 1.7), a * Math.sin(2 * Math.PI * t / 2.3 + 1));
      return { ...moved, rgb: moved.rgb.map((v) => 20 + Math.round(v * 0.45)) };
    },
    speed: 1.2,
  },
  { name: 'fast', what: 'reps 1.4x faster', speed: 1.4 },
  { name: 'slow', what: 'reps 0.7x as fast', speed: 0.7 },
];

/** Each keypoint's mirror twin (left <-> right); the face's centre (nose) is its own. */
const twin: number[] = (() => {
  const t = Array.from({ length: KP_COUNT }, (_, i) => i);
  for (const [name, k] of Object.entries(KP)) {
    if (!name.startsWith('left')) continue;
    const r = KP[`right${name.slice(4)}` as keyof typeof KP];
    t[k] = r;
    t[r] = k;
  }
  return t;
})();

/** Every pose with each keypoint (x, y, score) changed by `f`; depth kept. */
function mapKeypoints(x: ExtractedPoses, f: (p: PackedPose, k: number, xy: [number, number, number], i: number) => [number, number, number]): ExtractedPoses {
  return {
    ...x,
    poses: x.poses.map((p, i) => {
      const packed = new Float32Array(p.packed.length);
      for (let k = 0; k < p.packed.length / 3; k++) packed.set(f(p, k, [p.packed[k * 3]!, p.packed[k * 3 + 1]!, p.packed[k * 3 + 2]!], i), k * 3);
      return { ...p, packed };
    }),
  };
}

/**
 * The clip as performed at `speed` (0.75: slower), at the same frame rate: each new frame is the
 * pose at `speed` times its time, between the two nearest found poses (positions interpolated, the
 * lower score kept, a cut carried to the first frame after it).
 */
function timeStretch(x: ExtractedPoses, speed: number): ExtractedPoses {
  const step = 1000 / x.fps;
  const t0 = x.poses[0]?.timeMs ?? 0;
  const last = x.poses[x.poses.length - 1]?.timeMs ?? t0;
  const poses: PackedPose[] = [];
  let j = 0;
  for (let t = 0; t0 + t * speed <= last; t += step) {
    const src = t0 + t * speed;
    while (j + 1 < x.poses.length && x.poses[j + 1]!.timeMs <= src) j++;
    const a = x.poses[j]!, b = x.poses[Math.min(j + 1, x.poses.length - 1)]!;
    const w = b.timeMs > a.timeMs ? Math.min(1, (src - a.timeMs) / (b.timeMs - a.timeMs)) : 0;
    const packed = new Float32Array(a.packed.length);
    for (let k = 0; k < packed.length; k++) packed[k] = k % 3 === 2 ? Math.min(a.packed[k]!, b.packed[k]!) : a.packed[k]! * (1 - w) + b.packed[k]! * w;
    const prevSrc = t0 + (t - step) * speed;
    const cut = x.poses.some((p) => p.cut && p.timeMs > prevSrc && p.timeMs <= src);
    const depth = a.depth && b.depth ? a.depth.map((z, k) => z * (1 - w) + b.depth![k]! * w) : a.depth;
    poses.push({ timeMs: Math.round(t0 + t), packed, ...(depth ? { depth } : {}), ...(cut ? { cut: true } : {}) });
  }
  return { ...x, poses, videoMs: x.videoMs / speed };
}

/** Only the frames `keep` says, a dropped frame's cut carried to the next one kept. */
function keepFrames(x: ExtractedPoses, keep: (i: number) => boolean, fps = x.fps): ExtractedPoses {
  const poses: PackedPose[] = [];
  let cut = false;
  x.poses.forEach((p, i) => {
    cut ||= Boolean(p.cut);
    if (!keep(i)) return;
    const { cut: _c, ...rest } = p;
    poses.push({ ...rest, ...(cut ? { cut: true } : {}) });
    cut = false;
  });
  return { ...x, fps, poses };
}

const LEGS: readonly number[] = [KP.leftKnee, KP.rightKnee, KP.leftAnkle, KP.rightAnkle, KP.leftHeel, KP.rightHeel, KP.leftToe, KP.rightToe];
const HANDS: readonly number[] = [KP.leftWrist, KP.rightWrist, KP.leftHand, KP.rightHand];

/**
 * The joints `lost` out of the frame for one second in every five, from 2 s in (the person steps
 * toward the camera, or reaches out of the picture): the model then reports them unseen where it
 * guessed them. Not at the very start: a clip that opens on a rep not seen from rest is a rule of
 * its own (reps.ts `openStart`).
 */
function cropped(x: ExtractedPoses, lost: readonly number[]): ExtractedPoses {
  const gone = new Set(lost);
  const out = (t: number) => (t - (x.poses[0]?.timeMs ?? 0) + 3000) % 5000 < 1000;
  return mapKeypoints(x, (p, k, [px, py, s]) => [px, py, gone.has(k) && out(p.timeMs) ? Math.min(s, 0.05) : s]);
}

/** Variants made on the found poses (see the file's head); names start with `pose:`. */
export const poseAugmentations: Augmentation[] = [
  {
    name: 'pose:mirror', what: 'the poses mirrored: x flipped about the frame centre, left and right keypoints swapped',
    poses: (x) => ({
      ...x,
      poses: x.poses.map((p) => {
        const packed = new Float32Array(p.packed.length);
        for (let k = 0; k < p.packed.length / 3; k++) {
          const from = twin[k]!;
          packed[k * 3] = x.width - p.packed[from * 3]!;
          packed[k * 3 + 1] = p.packed[from * 3 + 1]!;
          packed[k * 3 + 2] = p.packed[from * 3 + 2]!;
        }
        return { ...p, packed, ...(p.depth ? { depth: p.depth.map((_, k) => p.depth![twin[k]!]!) } : {}) };
      }),
    }),
  },
  { name: 'pose:half-fps', what: 'every second frame dropped: 12 fps read as 6 fps', poses: (x) => keepFrames(x, (i) => i % 2 === 0, x.fps / 2) },
  {
    name: 'pose:lose-5', what: '5% of the frames lost at random (gaps in time, fps as filmed)',
    poses: (x) => { const r = random(x.poses.length); return keepFrames(x, () => r() >= 0.05); },
  },
  { name: 'pose:slow', what: 'a slower performer: 0.75x the speed (time-stretched poses)', poses: (x) => timeStretch(x, 0.75) },
  { name: 'pose:fast', what: 'a faster performer: 1.33x the speed (time-stretched poses)', poses: (x) => timeStretch(x, 1.33) },
  {
    name: 'pose:far', what: 'camera farther: the body at 60% of its size about the frame centre, each keypoint 0.8x as sure, 0.3% of the frame of jitter',
    poses: (x) => {
      const r = random(x.poses.length + 7), cx = x.width / 2, cy = x.height / 2, jitter = 0.003 * Math.max(x.width, x.height);
      // A normal deviate from two uniform ones (Box-Muller): the model's keypoint noise.
      const noise = () => Math.sqrt(-2 * Math.log(Math.max(1e-9, r()))) * Math.cos(2 * Math.PI * r()) * jitter;
      const near = mapKeypoints(x, (_p, _k, [px, py, s]) => [cx + 0.6 * (px - cx) + noise(), cy + 0.6 * (py - cy) + noise(), 0.8 * s]);
      // Depth is in the same pixels as x: it shrinks with the body.
      return { ...near, poses: near.poses.map((p) => (p.depth ? { ...p, depth: p.depth.map((z) => 0.6 * z) } : p)) };
    },
  },
  { name: 'pose:crop-legs', what: 'knees and feet out of the frame one second in five', poses: (x) => cropped(x, LEGS) },
  { name: 'pose:crop-hands', what: 'wrists and hands out of the frame one second in five', poses: (x) => cropped(x, HANDS) },
];

export function pickAugmentations(spec: string): Augmentation[] {
  const known = [...augmentations, ...poseAugmentations];
  return spec.split(',').flatMap((n) => {
    if (n === 'all') return augmentations;
    if (n === 'pose') return poseAugmentations;
    const a = known.find((x) => x.name === n);
    if (!a) throw new Error(`unknown augmentation "${n}"; known: ${known.map((x) => x.name).join(', ')}, all (the pictures), pose (every pose: variant)`);
    return [a];
  });
}
