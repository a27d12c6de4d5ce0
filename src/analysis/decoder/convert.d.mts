// Types of convert.mjs (plain JavaScript: the sandboxed decoder process runs it without tsx).
export interface Axis { i0: Int32Array; i1: Int32Array; f: Int32Array }
export interface Plan { swap: boolean; col: Axis; row: Axis }
export interface Coefficients { yOff: number; ym: number; rv: number; gu: number; gv: number; bu: number }
export interface PlaneLayout { offset: number; stride: number }
/** The subset of @napi-rs/webcodecs' VideoFrame that convertFrame uses. */
export interface FrameLike {
  format: string | null;
  codedWidth: number;
  codedHeight: number;
  visibleRect?: { width: number; height: number } | null;
  colorSpace?: { matrix?: string | null; fullRange?: boolean | null } | null;
  allocationSize(options?: { format?: string }): number;
  copyTo(destination: Uint8Array, options?: { format?: string }): Promise<PlaneLayout[]>;
}
export function cachedPlan(sw: number, sh: number, rotation: number, ow: number, oh: number): Plan;
export function coefficients(colorSpace: FrameLike['colorSpace']): Coefficients;
/** The frame as packed RGB24, turned; the bytes hold until the next call. */
export function convertFrame(frame: FrameLike, rotation: number, ow: number, oh: number): Promise<Buffer>;
