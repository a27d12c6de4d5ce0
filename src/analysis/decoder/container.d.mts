// Types of container.mjs (plain JavaScript: the sandboxed decoder process runs it without tsx).
export function containerOf(head: Buffer): 'mp4' | 'webm' | 'mkv' | undefined;
export function videoTrackMatrix(file: { size: number; read(position: number, length: number): Buffer }): number[] | undefined;
export function rotationOf(matrix: number[] | undefined): number;
