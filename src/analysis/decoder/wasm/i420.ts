// AssemblyScript source of i420.wasm, the decoder's YUV 4:2:0 -> RGB24 kernel (convert.mjs calls
// it). Built by `npm run build:wasm` and committed with this file; test/analysis/convert.unit.test.ts
// checks that the committed binary is what this source builds to, and that its output is the
// byte-for-byte output of the JavaScript kernel it replaced (a JS copy lives in that test).
//
// Why WebAssembly: the same loop in JavaScript cost 8-10 ms of CPU a 960x540 frame (typed-array
// bounds checks and clamped stores on every byte), ~150-190 ms of a 2 s job's CPU; compiled here it
// runs at the speed of the same loop in C (-O2), ~30-35% less. Not in tsc's project (tsconfig
// excludes this folder): `load`, `store` and the integer types are AssemblyScript's.
//
// Memory is the caller's (imported): the plan's tables, the frame's planes and the output all live
// there, passed as byte offsets, so nothing is copied in or out beyond FFmpeg's copy of the planes.

/** Clamps to a byte, as a store to a Uint8ClampedArray does for an integer. */
@inline function clamp(x: i32): i32 {
  return x < 0 ? 0 : x > 255 ? 255 : x;
}

/**
 * Bilinear luma and nearest chroma of 8-bit 4:2:0 planes at `src` (each plane at its offset and
 * stride) into packed RGB at `out`, `ow` x `oh` pixels. The sampling plan (convert.mjs `plan`) is
 * six i32 tables: per output column `ci0`/`ci1` (source index pair) and `cf` (weight of the second,
 * in 1/256), per output row `ri0`/`ri1`/`rf`. With `swap` (quarter turns) the output column walks
 * the source's rows and the output row its columns. `k*` are the 8.8 fixed-point YUV -> RGB
 * coefficients (convert.mjs `coefficients`).
 */
export function i420(
  src: usize, yb: i32, ys: i32, ub: i32, us: i32, vb: i32, vs: i32,
  yOff: i32, ym: i32, rv: i32, gu: i32, gv: i32, bu: i32,
  swap: bool, ci0: usize, ci1: usize, cf: usize, ri0: usize, ri1: usize, rf: usize,
  ow: i32, oh: i32, out: usize,
): void {
  let o = out;
  if (!swap) {
    for (let oy = 0; oy < oh; oy++) {
      const ry = <usize>oy << 2;
      const y0 = load<i32>(ri0 + ry), fy = load<i32>(rf + ry);
      const r0 = src + <usize>(yb + y0 * ys), r1 = src + <usize>(yb + load<i32>(ri1 + ry) * ys);
      const uRow = src + <usize>(ub + (y0 >> 1) * us), vRow = src + <usize>(vb + (y0 >> 1) * vs);
      for (let ox = 0; ox < ow; ox++) {
        const rx = <usize>ox << 2;
        const x0 = <usize>load<i32>(ci0 + rx), x1 = <usize>load<i32>(ci1 + rx), fx = load<i32>(cf + rx);
        const a = <i32>load<u8>(r0 + x0), b = <i32>load<u8>(r1 + x0);
        const top = (a << 8) + (<i32>load<u8>(r0 + x1) - a) * fx;
        const bot = (b << 8) + (<i32>load<u8>(r1 + x1) - b) * fx;
        const c = ym * ((((top << 8) + (bot - top) * fy) >> 16) - yOff) + 128;
        const u = <i32>load<u8>(uRow + (x0 >> 1)) - 128, v = <i32>load<u8>(vRow + (x0 >> 1)) - 128;
        store<u8>(o, clamp((c + rv * v) >> 8));
        store<u8>(o, clamp((c - gu * u - gv * v) >> 8), 1);
        store<u8>(o, clamp((c + bu * u) >> 8), 2);
        o += 3;
      }
    }
    return;
  }
  for (let oy = 0; oy < oh; oy++) {
    const ry = <usize>oy << 2;
    const x0 = <usize>load<i32>(ri0 + ry), x1 = <usize>load<i32>(ri1 + ry), fx = load<i32>(rf + ry);
    const cx = x0 >> 1;
    for (let ox = 0; ox < ow; ox++) {
      const rx = <usize>ox << 2;
      const y0 = load<i32>(ci0 + rx), fy = load<i32>(cf + rx);
      const r0 = src + <usize>(yb + y0 * ys), r1 = src + <usize>(yb + load<i32>(ci1 + rx) * ys);
      const a = <i32>load<u8>(r0 + x0), b = <i32>load<u8>(r1 + x0);
      const top = (a << 8) + (<i32>load<u8>(r0 + x1) - a) * fx;
      const bot = (b << 8) + (<i32>load<u8>(r1 + x1) - b) * fx;
      const c = ym * ((((top << 8) + (bot - top) * fy) >> 16) - yOff) + 128;
      const u = <i32>load<u8>(src + <usize>(ub + (y0 >> 1) * us) + cx) - 128;
      const v = <i32>load<u8>(src + <usize>(vb + (y0 >> 1) * vs) + cx) - 128;
      store<u8>(o, clamp((c + rv * v) >> 8));
      store<u8>(o, clamp((c - gu * u - gv * v) >> 8), 1);
      store<u8>(o, clamp((c + bu * u) >> 8), 2);
      o += 3;
    }
  }
}
