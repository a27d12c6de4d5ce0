// glibc allocator settings for the processes that analyse a video, the engine process
// (runner/engine-host.ts) and its decoder (decoder/sandbox.ts): issue 22, memory per job.
// - MALLOC_ARENA_MAX: one arena per thread by default (up to 8 per core), each keeping what its
//   thread freed; FFmpeg's, V8's and libuv's threads share two instead (5-10 MB less in a 720p
//   decoder, no more CPU).
// - MALLOC_MMAP_THRESHOLD_, the engine only: by default glibc raises its mmap threshold each time
//   a large block is freed (up to 32 MB), so later large blocks (the ONNX model bytes while a
//   session is made, onnxruntime's buffers) come from the heap and, once freed, stay resident
//   behind blocks still in use. Fixed at 128 KB, each such block has its own mapping, returned to
//   the system when freed: 15-30 MB less in an engine process. onnxruntime's own arena keeps the
//   per-frame buffers, so the pose model pays no mapping per run (its arena off with this
//   threshold cost 30% more CPU). Not in the decoder: a frame's buffers (1-3 MB) would then be
//   mapped and unmapped every frame, 12% more CPU for 5 MB.
// Neither changes what is computed.
const ARENAS = { MALLOC_ARENA_MAX: '2' };
export const ENGINE_MALLOC_ENV: Readonly<Record<string, string>> = { ...ARENAS, MALLOC_MMAP_THRESHOLD_: '131072' };
export const DECODER_MALLOC_ENV: Readonly<Record<string, string>> = ARENAS;
