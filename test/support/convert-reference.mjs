// The decoder's 4:2:0 -> RGB kernel as it was in JavaScript (src/analysis/decoder/convert.mjs's
// fromI420 until issue 22n moved it to WebAssembly, wasm/i420.ts), verbatim but for its signature
// (types in convert-reference.d.mts): the reference that test/analysis/convert.unit.test.ts holds the wasm kernel to, byte
// for byte, and the baseline `npm run bench:decode` times it against.
/**
 * Bilinear luma and nearest chroma of 8-bit 4:2:0 planes into `out` (clamped on store). Written
 * twice, with every lookup hoisted: the plain loop walks source rows, the quarter-turn loop walks
 * source columns (output column = source row).
 */
export function referenceI420(src, [Y, U, V], k, { swap, col, row }, ow, oh, out = new Uint8ClampedArray(ow * oh * 3)) {
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
    return out;
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
  return out;
}
