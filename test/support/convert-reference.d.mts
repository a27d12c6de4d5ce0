// Types of convert-reference.mjs.
import type { Coefficients, Plan, PlaneLayout } from '../../src/analysis/decoder/convert.mjs';
export function referenceI420(src: Uint8Array, layout: PlaneLayout[], k: Coefficients, plan: Plan, ow: number, oh: number, out?: Uint8ClampedArray): Uint8ClampedArray;
