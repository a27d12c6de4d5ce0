// A decoded frame -> packed RGB24 of the output size, turned upright, in one pass over the output
// pixels only (a 1080p frame scaled to 960 px touches half a million pixels, not two million).
// 8-bit 4:2:0 (nearly every camera file) is converted here from its planes; any other layout is
// first converted to RGBA by FFmpeg (swscale) inside the decoder package.

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
function cachedPlan(sw, sh, rotation, ow, oh) {
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
function coefficients(colorSpace) {
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

let scratch = new Uint8Array(0);
function buffer(size) {
  if (scratch.length < size) scratch = new Uint8Array(size);
  return scratch;
}

/**
 * Bilinear luma and nearest chroma of 8-bit 4:2:0 planes into `out` (clamped on store). Written
 * twice, with every lookup hoisted: the plain loop walks source rows, the quarter-turn loop walks
 * source columns (output column = source row).
 */
function fromI420(src, [Y, U, V], k, swap, col, row, ow, oh, out) {
  const yb = Y.offset, ys = Y.stride, ub = U.offset, us = U.stride, vb = V.offset, vs = V.stride;
  const { yOff, ym, rv, gu, gv, bu } = k;
  const ci0 = col.i0, ci1 = col.i1, cf = col.f;
  let o = 0;
  if (!swap) {
    for (let oy = 0; oy < oh; oy++) {
      const y0 = row.i0[oy], fy = row.f[oy];
      const r0 = yb + y0 * ys, r1 = yb + row.i1[oy] * ys;
      const uRow = ub + (y0 >> 1) * us, vRow = vb + (y0 >> 1) * vs;
      for (let ox = 0; ox < ow; ox++) {
        const x0 = ci0[ox], x1 = ci1[ox], fx = cf[ox];
        const a = src[r0 + x0], b = src[r1 + x0];
        const top = (a << 8) + (src[r0 + x1] - a) * fx;
        const bot = (b << 8) + (src[r1 + x1] - b) * fx;
        const c = ym * ((((top << 8) + (bot - top) * fy) >> 16) - yOff) + 128;
        const u = src[uRow + (x0 >> 1)] - 128, v = src[vRow + (x0 >> 1)] - 128;
        out[o++] = (c + rv * v) >> 8;
        out[o++] = (c - gu * u - gv * v) >> 8;
        out[o++] = (c + bu * u) >> 8;
      }
    }
    return;
  }
  for (let oy = 0; oy < oh; oy++) {
    const x0 = row.i0[oy], x1 = row.i1[oy], fx = row.f[oy];
    const cx = x0 >> 1;
    for (let ox = 0; ox < ow; ox++) {
      const y0 = ci0[ox], fy = cf[ox];
      const r0 = yb + y0 * ys, r1 = yb + ci1[ox] * ys;
      const a = src[r0 + x0], b = src[r1 + x0];
      const top = (a << 8) + (src[r0 + x1] - a) * fx;
      const bot = (b << 8) + (src[r1 + x1] - b) * fx;
      const c = ym * ((((top << 8) + (bot - top) * fy) >> 16) - yOff) + 128;
      const u = src[ub + (y0 >> 1) * us + cx] - 128, v = src[vb + (y0 >> 1) * vs + cx] - 128;
      out[o++] = (c + rv * v) >> 8;
      out[o++] = (c - gu * u - gv * v) >> 8;
      out[o++] = (c + bu * u) >> 8;
    }
  }
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

/**
 * The frame as packed RGB24 of `ow` x `oh`, turned `rotation` degrees clockwise, written into `out`
 * (ow * oh * 3 bytes; a new buffer if none is given).
 */
export async function convertFrame(frame, rotation, ow, oh, out = new Uint8ClampedArray(ow * oh * 3)) {
  const sw = frame.visibleRect?.width || frame.codedWidth;
  const sh = frame.visibleRect?.height || frame.codedHeight;
  const { swap, col, row } = cachedPlan(sw, sh, rotation, ow, oh);
  if (frame.format === 'I420' || frame.format === 'I420A') {
    const src = buffer(frame.allocationSize());
    const layout = await frame.copyTo(src);
    fromI420(src, layout, coefficients(frame.colorSpace), swap, col, row, ow, oh, out);
  } else {
    const src = buffer(frame.allocationSize({ format: 'RGBA' }));
    const [P] = await frame.copyTo(src, { format: 'RGBA' });
    fromRGBA(src, P, swap, col, row, ow, oh, out);
  }
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
