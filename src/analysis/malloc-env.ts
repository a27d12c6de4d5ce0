// glibc allocator settings for the processes that analyse a video, the engine process
// (runner/engine-host.ts) and its decoder (decoder/sandbox.ts): issue 22, memory per job.
// - MALLOC_MMAP_THRESHOLD_: by default glibc raises its mmap threshold each time a large block is
//   freed (up to 32 MB), so later large blocks (the ONNX model bytes while a session is made,
//   onnxruntime's buffers, FFmpeg's frames) come from the heap and, once freed, stay resident
//   behind blocks still in use. Fixed at 128 KB, each such block has its own mapping, returned to
//   the system when freed: ~30 MB less in an engine process after its models load.
// - MALLOC_ARENA_MAX: one arena per thread by default (up to 8 per core), each keeping what its
//   thread freed; FFmpeg's and V8's threads share two instead (~10 MB less in a 720p decoder).
// Neither changes what is computed; onnxruntime's own arena keeps its per-frame buffers, so the
// pose model does not pay a mapping per run (arena off with this threshold cost 30% more CPU).
export const MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '2' };
