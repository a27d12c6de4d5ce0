// A decoded frame -> packed RGB24 of the output size, turned upright, in one pass over the output
// pixels only (a 1080p frame scaled to 960 px touches half a million pixels, not two million).
// 8-bit 4:2:0 (nearly every camera file) is converted here from its planes; any other layout is
// first converted to RGBA by FFmpeg (swscale) inside the decoder package.
import { readFileSync } from 'node:fs';

/** Per output index along one axis: source index pair and weight, for a source of `n` samples. */
function axis(outN, displayN, reverse, n) {
  const i0 = new Int32Array(outN);
  const i1 = new Int32Array(outN);
  const f = new Int32Array(outN); // weight of i1, in 1/256
  const scale = displayN / outN;
  for (let o = 0; o < outN; o++) {
    let d = Math.min(displayN - 1, Math.max(0, (o + 0.5) * scale - 0.5));
    if (reverse) d = displayN - 1 - d;
    const lo = Math.min(n - 1, Math.floor(d));
    i0[o] = lo;
    i1[o] = Math.min(n - 1, lo + 1);
    f[o] = Math.round((d - lo) * 256);
  }
  return { i0, i1, f };
}

/**
 * Sampling plan for a `sw` x `sh` source shown turned `rotation` degrees clockwise at `ow` x `oh`:
 * `col` is driven by the output column, `row` by the output row; `swap` says the output column
 * walks the source's rows (quarter turns).
 */
function plan(sw, sh, rotation, ow, oh) {
  const swap = rotation === 90 || rotation === 270;
  const dw = swap ? sh : sw;
  const dh = swap ? sw : sh;
  // Display -> source: 90: xs = dy, ys = sh-1-dx; 180: xs = sw-1-dx, ys = sh-1-dy; 270: xs = sw-1-dy, ys = dx.
  const col = axis(ow, dw, rotation === 90 || rotation === 180, swap ? sh : sw);
  const row = axis(oh, dh, rotation === 180 || rotation === 270, swap ? sw : sh);
  return { swap, col, row };
}

const plans = new Map();
export function cachedPlan(sw, sh, rotation, ow, oh) {
  const key = `${sw}x${sh}r${rotation}-${ow}x${oh}`;
  let p = plans.get(key);
  if (!p) {
    if (plans.size > 8) plans.clear();
    p = plan(sw, sh, rotation, ow, oh);
    plans.set(key, p);
  }
  return p;
}

/** YUV -> RGB in 8.8 fixed point: BT.709 for HD-tagged streams, BT.601 otherwise; limited or full range. */
export function coefficients(colorSpace) {
  const hd = colorSpace?.matrix === 'bt709';
  const full = colorSpace?.fullRange === true;
  const ys = full ? 1 : 255 / 219;
  const cs = full ? 1 : 255 / 224;
  const [kr, kb] = hd ? [0.2126, 0.0722] : [0.299, 0.114];
  const kg = 1 - kr - kb;
  const q = (x) => Math.round(x * 256);
  return {
    yOff: full ? 0 : 16, ym: q(ys),
    rv: q(2 * (1 - kr) * cs), gu: q((2 * (1 - kb) * kb / kg) * cs), gv: q((2 * (1 - kr) * kr / kg) * cs), bu: q(2 * (1 - kb) * cs),
  };
}

// The 4:2:0 kernel is WebAssembly (wasm/i420.ts: ~60% less CPU than the same loop in JavaScript,
// byte-identical output). Its memory holds the current plan's six tables, the frame's planes (FFmpeg
// copies them straight in), the output, the picture before its quarter turn, and scratch rows. It
// grows to the largest frame seen and is kept, as the JavaScript scratch buffer it replaced was.
const memory = new WebAssembly.Memory({ initial: 1 });
const { i420 } = new WebAssembly.Instance(
  new WebAssembly.Module(readFileSync(new URL('./wasm/i420.wasm', import.meta.url))),
  { env: { memory, abort: () => { throw new Error('i420.wasm aborted'); } } },
).exports;
const PAGE = 65536;
const align = (n) => Math.ceil(n / 16) * 16;
let placed; // the plan whose tables are in memory

/** Byte offsets of each region in the kernel's memory for a plan and a frame of `frameBytes`; the plan's tables placed. */
function layoutFor(p, ow, oh, frameBytes) {
  const t = { ci0: 0, ci1: 4 * ow, cf: 8 * ow, ri0: 12 * ow, ri1: 12 * ow + 4 * oh, rf: 12 * ow + 8 * oh };
  const planes = align(12 * (ow + oh));
  const out = align(planes + frameBytes);
  const turned = align(out + ow * oh * 3 + 16); // the kernel's 4-pixel stores run up to 4 bytes past a picture
  const tmp = align(turned + (p.swap ? ow * oh * 3 + 16 : 0));
  const pages = Math.ceil((tmp + 10 * (ow + oh) + 64) / PAGE) - memory.buffer.byteLength / PAGE;
  if (pages > 0) memory.grow(pages);
  if (placed !== p) {
    const i32 = new Int32Array(memory.buffer, 0, 3 * (ow + oh));
    i32.set(p.col.i0, t.ci0 / 4); i32.set(p.col.i1, t.ci1 / 4); i32.set(p.col.f, t.cf / 4);
    i32.set(p.row.i0, t.ri0 / 4); i32.set(p.row.i1, t.ri1 / 4); i32.set(p.row.f, t.rf / 4);
    placed = p;
  }
  return { ...t, planes, out, turned, tmp };
}

/** Bilinear luma and nearest chroma of an 8-bit 4:2:0 frame (wasm/i420.ts): the output, in the kernel's memory. */
async function fromI420(frame, p, ow, oh) {
  const size = frame.allocationSize();
  const at = layoutFor(p, ow, oh, size);
  // Views are made after any grow: growing detaches the memory's earlier ArrayBuffer.
  const [Y, U, V] = await frame.copyTo(new Uint8Array(memory.buffer, at.planes, size));
  const k = coefficients(frame.colorSpace);
  i420(at.planes, Y.offset, Y.stride, U.offset, U.stride, V.offset, V.stride, k.yOff, k.ym, k.rv, k.gu, k.gv, k.bu,
    p.swap ? 1 : 0, at.ci0, at.ci1, at.cf, at.ri0, at.ri1, at.rf, ow, oh, at.out, at.turned, at.tmp);
  return Buffer.from(memory.buffer, at.out, ow * oh * 3);
}

let rgba = new Uint8Array(0);
function rgbaBuffer(size) {
  if (rgba.length < size) rgba = new Uint8Array(size);
  return rgba;
}

/** Bilinear RGB from a packed RGBA plane into `out`. */
function fromRGBA(src, P, swap, col, row, ow, oh, out) {
  let o = 0;
  for (let oy = 0; oy < oh; oy++) {
    for (let ox = 0; ox < ow; ox++) {
      const ix = swap ? oy : ox, iy = swap ? ox : oy;
      const px = swap ? row : col, py = swap ? col : row;
      const x0 = px.i0[ix] * 4, x1 = px.i1[ix] * 4, fx = px.f[ix];
      const r0 = P.offset + py.i0[iy] * P.stride, r1 = P.offset + py.i1[iy] * P.stride, fy = py.f[iy];
      for (let c = 0; c < 3; c++) {
        const a = src[r0 + x0 + c], b = src[r1 + x0 + c];
        const top = (a << 8) + (src[r0 + x1 + c] - a) * fx;
        const bot = (b << 8) + (src[r1 + x1 + c] - b) * fx;
        out[o++] = ((top << 8) + (bot - top) * fy + 32768) >> 16;
      }
    }
  }
}

let rgb = new Uint8ClampedArray(0);

/**
 * The frame as packed RGB24 of `ow` x `oh`, turned `rotation` degrees clockwise. The bytes are this
 * module's (for 4:2:0, the kernel's memory: written to the pipe from there, not copied out first)
 * and hold until the next call: the caller writes them out before converting another frame.
 */
export async function convertFrame(frame, rotation, ow, oh) {
  const sw = frame.visibleRect?.width || frame.codedWidth;
  const sh = frame.visibleRect?.height || frame.codedHeight;
  const p = cachedPlan(sw, sh, rotation, ow, oh);
  if (frame.format === 'I420' || frame.format === 'I420A') return fromI420(frame, p, ow, oh);
  const { swap, col, row } = p;
  const src = rgbaBuffer(frame.allocationSize({ format: 'RGBA' }));
  const [P] = await frame.copyTo(src, { format: 'RGBA' });
  if (rgb.length !== ow * oh * 3) rgb = new Uint8ClampedArray(ow * oh * 3);
  fromRGBA(src, P, swap, col, row, ow, oh, rgb);
  return Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength);
}
