// A rotated square region of the frame, as MediaPipe's pose pipeline uses it: the detector (or the
// previous frame's landmarks) gives a centre, a size and a rotation that puts the body upright,
// and the models see that square warped to their fixed input size.
import type { Frame } from '../decode.js';

/** Rotated square in frame pixels; `angle` (radians) turns the square's "up" onto the body's. */
export interface Roi { cx: number; cy: number; size: number; angle: number }

/** Pixel value mapping into the model's float input: out = v * scale + offset. */
export interface InputRange { scale: number; offset: number }

/** The whole frame, letterboxed (centred, long side fitting), unrotated. */
export function fullFrameRoi(width: number, height: number): Roi {
  return { cx: width / 2, cy: height / 2, size: Math.max(width, height), angle: 0 };
}

/**
 * Where the landmark model looks when the detector finds no one: the last tracked ROI widened, then
 * the whole frame as a square half again its long side. The detector finds a person by the face,
 * so a close-up with the head out of the picture (chest to thighs) has no detection at all; the
 * landmark model still reads such a body when the square reaches past the frame's edge to where
 * the head would be (the part outside is black), as its ROI from a full-body view would.
 */
export function fallbackRois(width: number, height: number, last: Roi | null): Roi[] {
  const whole = { ...fullFrameRoi(width, height), size: 1.5 * Math.max(width, height) };
  return last ? [{ ...last, size: last.size * 1.25 }, whole] : [whole];
}

const normalizeRadians = (a: number) => a - 2 * Math.PI * Math.floor((a + Math.PI) / (2 * Math.PI));

/**
 * MediaPipe's AlignmentPointsRectsCalculator + RectTransformation: the square centred on `center`
 * with half-side |align - center| scaled by `scale`, rotated so that `align` points up.
 */
export function roiFromAlignment(center: { x: number; y: number }, align: { x: number; y: number }, scale = 1.25): Roi {
  const dx = align.x - center.x, dy = align.y - center.y;
  const radius = Math.hypot(dx, dy);
  // atan2 with y flipped: image y grows downwards. An upright body (align straight above) is 0.
  const angle = normalizeRadians(Math.PI / 2 - Math.atan2(-dy, dx));
  return { cx: center.x, cy: center.y, size: 2 * radius * scale, angle };
}

/** Frame-pixel position of the model-input point (u, v), both in 0..1 of the ROI square. */
export function fromRoi(roi: Roi, u: number, v: number): { x: number; y: number } {
  const du = (u - 0.5) * roi.size, dv = (v - 0.5) * roi.size;
  const c = Math.cos(roi.angle), s = Math.sin(roi.angle);
  return { x: roi.cx + c * du - s * dv, y: roi.cy + s * du + c * dv };
}

/**
 * Samples the ROI into an NHWC float tensor of side `size` with bilinear interpolation; black
 * (pixel value 0) outside the frame, as MediaPipe's BORDER_ZERO. Cost depends on the output size
 * only, never on the decoded frame's. Rows that lie wholly inside the frame (the usual case) take
 * a branch-free path; only rows touching the border check every sample.
 */
export function warpRoi(frame: Frame, roi: Roi, size: number, range: InputRange, out: Float32Array<ArrayBuffer> = new Float32Array(size * size * 3)): Float32Array<ArrayBuffer> {
  const { width: W, height: H, rgb } = frame;
  const step = roi.size / size;
  const c = Math.cos(roi.angle) * step, s = Math.sin(roi.angle) * step;
  // Output pixel centres (i + 0.5) map to frame positions; frame pixel centres sit at integer + 0.5.
  const half = size / 2;
  const x0 = roi.cx - c * half + s * half - 0.5;
  const y0 = roi.cy - s * half - c * half - 0.5;
  const zero = range.offset;
  const k = range.scale;
  const stride = W * 3;
  let o = 0;
  for (let j = 0; j < size; j++) {
    let x = x0 + c * 0.5 - s * (j + 0.5);
    let y = y0 + s * 0.5 + c * (j + 0.5);
    const xEnd = x + c * (size - 1), yEnd = y + s * (size - 1);
    const inside = Math.min(x, xEnd) >= 0 && Math.min(y, yEnd) >= 0 && Math.max(x, xEnd) < W - 1 && Math.max(y, yEnd) < H - 1;
    if (inside) {
      for (let i = 0; i < size; i++, x += c, y += s, o += 3) {
        const xf = x | 0, yf = y | 0;
        const fx = x - xf, fy = y - yf;
        const a = yf * stride + xf * 3, b = a + stride;
        const w00 = (1 - fx) * (1 - fy), w01 = fx * (1 - fy), w10 = (1 - fx) * fy, w11 = fx * fy;
        out[o] = (rgb[a]! * w00 + rgb[a + 3]! * w01 + rgb[b]! * w10 + rgb[b + 3]! * w11) * k + zero;
        out[o + 1] = (rgb[a + 1]! * w00 + rgb[a + 4]! * w01 + rgb[b + 1]! * w10 + rgb[b + 4]! * w11) * k + zero;
        out[o + 2] = (rgb[a + 2]! * w00 + rgb[a + 5]! * w01 + rgb[b + 2]! * w10 + rgb[b + 5]! * w11) * k + zero;
      }
      continue;
    }
    for (let i = 0; i < size; i++, x += c, y += s, o += 3) {
      if (x <= -1 || y <= -1 || x >= W || y >= H) { out[o] = out[o + 1] = out[o + 2] = zero; continue; }
      const xf = Math.floor(x), yf = Math.floor(y);
      const fx = x - xf, fy = y - yf;
      // Neighbours outside the frame count as black: the border fades like a zero-padded image.
      const xin0 = xf >= 0, xin1 = xf + 1 < W, yin0 = yf >= 0, yin1 = yf + 1 < H;
      const a = yf * stride + xf * 3;
      const wa = xin0 && yin0 ? (1 - fx) * (1 - fy) : 0;
      const wb = xin1 && yin0 ? fx * (1 - fy) : 0;
      const wc = xin0 && yin1 ? (1 - fx) * fy : 0;
      const wd = xin1 && yin1 ? fx * fy : 0;
      const b = a + 3, cc = a + stride, d = cc + 3;
      for (let ch = 0; ch < 3; ch++) {
        const v = (wa ? rgb[a + ch]! * wa : 0) + (wb ? rgb[b + ch]! * wb : 0) + (wc ? rgb[cc + ch]! * wc : 0) + (wd ? rgb[d + ch]! * wd : 0);
        out[o + ch] = v * k + zero;
      }
    }
  }
  return out;
}
