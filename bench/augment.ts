// Variants of a clip that a partner's users could have filmed instead: mirrored, farther away,
// closer, with the phone tilted, hand-held and shaking, in a dim room, faster or slower. A robust engine
// counts a variant the same as the original, so `npm run eval -- --tuning --augment all` measures
// generalisation on clips we may look at without touching the holdout (bench/holdout.json).
// Pictures are changed after decoding and before the pose model; speed is changed by sampling the
// video at another rate and presenting the frames at the engine's own.
import type { Frame } from '../src/analysis/decode.js';

export interface Augmentation {
  /** Named in reports and in the pose cache's key. */
  name: string;
  what: string;
  /** The picture as filmed differently (a new frame; the decoder reuses its buffer). */
  frame?: (f: Frame) => Frame;
  /** Playback speed: 1.4 means the person moves 1.4x faster. */
  speed?: number;
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

export function pickAugmentations(spec: string): Augmentation[] {
  if (spec === 'all') return augmentations;
  return spec.split(',').map((n) => {
    const a = augmentations.find((x) => x.name === n);
    if (!a) throw new Error(`unknown augmentation "${n}"; known: ${augmentations.map((x) => x.name).join(', ')}, all`);
    return a;
  });
}
