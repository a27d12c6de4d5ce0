// AssemblyScript source of i420.wasm, the decoder's YUV 4:2:0 -> RGB24 kernel (convert.mjs calls
// it). Built by `npm run build:wasm` and committed with this file; test/analysis/convert.unit.test.ts
// checks that the committed binary is what this source builds to, and that its output is byte for
// byte that of the JavaScript loop it replaced (test/support/convert-reference.mjs keeps that loop).
//
// Why WebAssembly: that loop cost 8-10 ms of CPU a 960x540 frame in JavaScript (a bounds check and a
// clamped store on every byte), ~150-190 ms of a 2 s job's CPU. Here the luma is interpolated across
// once per source row and the rest runs four pixels at a time in SIMD: ~60% less CPU a frame. Not in
// tsc's project (tsconfig excludes this folder): `load`, `store`, `v128` and the integer types are
// AssemblyScript's. Casts are written `x as T` and nothing is decorated, so that Node's type stripping
// still takes the file (test/runtime/ts-loader.unit.test.ts strips everything under src/).
//
// Memory is the caller's (imported): the plan's tables, the frame's planes, the output and the
// scratch rows all live there, passed as byte offsets (see convert.mjs `layoutFor` for the sizes).

/** Clamps to a byte, as a store to a Uint8ClampedArray does for an integer. */
function clamp(x: i32): i32 {
  return x < 0 ? 0 : x > 255 ? 255 : x;
}

/** Luma of source row `row` at each of the `n` output columns, interpolated across in 8.8: (a << 8) + (a1 - a) * f. */
function across(dst: usize, row: usize, i0: usize, i1: usize, f: usize, n: i32): void {
  for (let o = 0; o < n; o++) {
    const k = (o as usize) << 2;
    const a = (load<u8>(row + (load<i32>(i0 + k) as usize)) as i32);
    store<i32>(dst + k, (a << 8) + ((load<u8>(row + (load<i32>(i1 + k) as usize)) as i32) - a) * load<i32>(f + k));
  }
}

/**
 * Bilinear luma and nearest chroma of 8-bit 4:2:0 planes at `src` (each plane at its offset and
 * stride) into packed RGB at `out`, `ow` x `oh` pixels, not turned: output column `ox` samples the
 * source columns `ci0`/`ci1` with weight `cf` (of the second, in 1/256), output row `oy` the rows
 * `ri0`/`ri1`/`rf` (i32 tables). The same arithmetic, in the same order, as the JavaScript loop:
 * across (x) first, then down (y). `k*` are the 8.8 fixed-point YUV -> RGB coefficients.
 * `tmp`: 8 * ow + 2 * (ow + 16) bytes of scratch. Writes up to 4 bytes past the output's end.
 */
function rows(
  src: usize, yb: i32, ys: i32, ub: i32, us: i32, vb: i32, vs: i32,
  yOff: i32, ym: i32, rv: i32, gu: i32, gv: i32, bu: i32,
  ci0: usize, ci1: usize, cf: usize, ri0: usize, ri1: usize, rf: usize,
  ow: i32, oh: i32, out: usize, tmp: usize,
): void {
  // Two rows interpolated across (downscaling 720 -> 540, about two output rows in three share one),
  // and the chroma row picked at each output column (shared by consecutive output rows).
  // (Plain locals, no arrays: the stub runtime would allocate them in memory the caller lays out.)
  const rowBytes = (ow as usize) << 2;
  const h0 = tmp, h1 = tmp + rowBytes;
  const ug = tmp + 2 * rowBytes, vg = ug + (ow as usize) + 16;
  let tag0 = -1, tag1 = -1; // the source rows h0 and h1 hold
  let chromaRow = -1;
  const yOffV = i32x4.splat(yOff), ymV = i32x4.splat(ym), mid = i32x4.splat(128);
  const rvV = i32x4.splat(rv), guV = i32x4.splat(gu), gvV = i32x4.splat(gv), buV = i32x4.splat(bu);
  let o = out;
  for (let oy = 0; oy < oh; oy++) {
    const ry = (oy as usize) << 2;
    const y0 = load<i32>(ri0 + ry), y1 = load<i32>(ri1 + ry), fy = load<i32>(rf + ry);
    let p0: usize, p1: usize;
    if (tag0 == y0) p0 = h0;
    else if (tag1 == y0) p0 = h1;
    else if (tag0 == y1) { p0 = h1; tag1 = y0; across(h1, src + ((yb + y0 * ys) as usize), ci0, ci1, cf, ow); } // keep y1
    else { p0 = h0; tag0 = y0; across(h0, src + ((yb + y0 * ys) as usize), ci0, ci1, cf, ow); }
    const other = p0 == h0 ? h1 : h0;
    if (y1 == y0) p1 = p0;
    else if ((other == h0 ? tag0 : tag1) == y1) p1 = other;
    else {
      p1 = other;
      if (other == h0) tag0 = y1; else tag1 = y1;
      across(other, src + ((yb + y1 * ys) as usize), ci0, ci1, cf, ow);
    }
    if (chromaRow != y0 >> 1) {
      chromaRow = y0 >> 1;
      const uRow = src + ((ub + chromaRow * us) as usize), vRow = src + ((vb + chromaRow * vs) as usize);
      for (let ox = 0; ox < ow; ox++) {
        const cx = ((load<i32>(ci0 + ((ox as usize) << 2)) >> 1) as usize);
        store<u8>(ug + ox, load<u8>(uRow + cx));
        store<u8>(vg + ox, load<u8>(vRow + cx));
      }
    }
    // Four pixels at a time. Narrowing saturates (to i16, then to 0..255): the byte clamp.
    const fyV = i32x4.splat(fy);
    let ox = 0;
    for (; ox + 4 <= ow; ox += 4) {
      const top = v128.load(p0 + ((ox as usize) << 2)), bot = v128.load(p1 + ((ox as usize) << 2));
      const y = i32x4.shr_s(i32x4.add(i32x4.shl(top, 8), i32x4.mul(i32x4.sub(bot, top), fyV)), 16);
      const c = i32x4.add(i32x4.mul(ymV, i32x4.sub(y, yOffV)), mid);
      const u = i32x4.sub(i32x4.extend_low_i16x8_u(v128.load8x8_u(ug + ox)), mid);
      const v = i32x4.sub(i32x4.extend_low_i16x8_u(v128.load8x8_u(vg + ox)), mid);
      const r = i32x4.shr_s(i32x4.add(c, i32x4.mul(rvV, v)), 8);
      const g = i32x4.shr_s(i32x4.sub(i32x4.sub(c, i32x4.mul(guV, u)), i32x4.mul(gvV, v)), 8);
      const b = i32x4.shr_s(i32x4.add(c, i32x4.mul(buV, u)), 8);
      const planar = i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_s(r, g), i16x8.narrow_i32x4_s(b, b));
      // R0..3 G0..3 B0..3 -> R0 G0 B0 R1 ...; the store's last 4 bytes are overwritten next.
      v128.store(o, i8x16.shuffle(planar, planar, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 13, 14, 15));
      o += 12;
    }
    for (; ox < ow; ox++) {
      const top = load<i32>(p0 + ((ox as usize) << 2)), bot = load<i32>(p1 + ((ox as usize) << 2));
      const c = ym * ((((top << 8) + (bot - top) * fy) >> 16) - yOff) + 128;
      const u = (load<u8>(ug + ox) as i32) - 128, v = (load<u8>(vg + ox) as i32) - 128;
      store<u8>(o, clamp((c + rv * v) >> 8));
      store<u8>(o, clamp((c - gu * u - gv * v) >> 8), 1);
      store<u8>(o, clamp((c + bu * u) >> 8), 2);
      o += 3;
    }
  }
}

/** `out` (w x h RGB) = `src` (h x w RGB) transposed, in 16 x 16 blocks so both sides stay in cache. */
function transpose(src: usize, w: i32, h: i32, out: usize): void {
  for (let by = 0; by < h; by += 16) {
    const yEnd = min(h, by + 16);
    for (let bx = 0; bx < w; bx += 16) {
      const xEnd = min(w, bx + 16);
      for (let y = by; y < yEnd; y++) {
        let o = out + ((y * w + bx) as usize) * 3;
        let s = src + ((bx * h + y) as usize) * 3;
        const step = (h as usize) * 3;
        for (let x = bx; x < xEnd; x++) {
          store<u16>(o, load<u16>(s));
          store<u8>(o, load<u8>(s, 2), 2);
          o += 3;
          s += step;
        }
      }
    }
  }
}

/**
 * The frame's planes into `out`, `ow` x `oh`, from convert.mjs's plan: `ci*` per output column,
 * `ri*` per output row. With `swap` (quarter turns) the output column walks the source's rows: the
 * picture is then made in the source's orientation at `turned` (output row = source row, so the
 * rows kernel serves both) and transposed into `out`. `tmp` as for `rows`, with ow + oh for ow.
 */
export function i420(
  src: usize, yb: i32, ys: i32, ub: i32, us: i32, vb: i32, vs: i32,
  yOff: i32, ym: i32, rv: i32, gu: i32, gv: i32, bu: i32,
  swap: bool, ci0: usize, ci1: usize, cf: usize, ri0: usize, ri1: usize, rf: usize,
  ow: i32, oh: i32, out: usize, turned: usize, tmp: usize,
): void {
  if (!swap) {
    rows(src, yb, ys, ub, us, vb, vs, yOff, ym, rv, gu, gv, bu, ci0, ci1, cf, ri0, ri1, rf, ow, oh, out, tmp);
    return;
  }
  rows(src, yb, ys, ub, us, vb, vs, yOff, ym, rv, gu, gv, bu, ri0, ri1, rf, ci0, ci1, cf, oh, ow, turned, tmp);
  transpose(turned, ow, oh, out);
}
