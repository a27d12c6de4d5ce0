// `npm run bench:engine`: decode-only vs full analysis per shared clip, real-time factor and peak
// RSS, plus the peak RSS of full-HD and 4K clips made from shared ones (landscape and portrait; 4K
// at 30 and 60 fps, H.264 and HEVC) and of a
// ~10-minute video made by concatenating a clip with itself. Every
// measurement runs in a fresh child process so its peak RSS is its own, not the bench's.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeFrames, defaultDecodeOptions, probe } from '../src/analysis/decode.js';
import { createEngineHost, type EngineHost } from '../src/runner/engine-host.js';
import { createPoseEngine, ENGINE_FPS } from '../src/analysis/index.js';
import type { PoseTimings } from '../src/analysis/pose/tracker.js';
import { loadLabels, videosDir } from './eval.js';
import { exerciseDef } from '../src/analysis/rules/index.js';
import { analyzePoses } from '../src/analysis/pipeline.js';
import { looped } from '../test/support/videos.js';
import { shortClip } from './support/clip.js';
import { rescaled } from './support/full-hd.js';
import { ffmpegPath, made4k, type FourK } from './support/four-k.js';
import { processTree, statOf } from './support/cpu.js';

interface Measure {
  mode: 'decode' | 'analyze'; videoMs: number; wallMs: number; cpuMs: number; frames: number; peakRssMb: number; valid?: number; pose?: PoseTimings;
  /** Job memory, sampled from the parent while the job runs (see JobMemory). */
  job?: JobMemory;
  /** The decoder's own peak (its watchdog's reading). */
  decoderPeakMb?: number;
}

/**
 * A job's memory, the highest of each figure over the samples (MB): `rss` the engine process and
 * the job's own decoder (the oldest decoder under it) with their resident sets added up as ps does,
 * Node's code counted in each: issue 22's figure, target under 300 MB; `pss` the same two
 * processes' proportional sets (/proc/PID/smaps_rollup: a page shared by n processes counts 1/n);
 * `treeRss` every process under the engine, the next job's decoder started ahead included;
 * `treeOnce` that tree counting each page once.
 */
interface JobMemory { rss: number; pss: number; treeRss: number; treeOnce: number; engineRss: number; decoderRss: number }

/** Resident set of a process, MB, from /proc (0 when it is gone). */
function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Proportional set size of a process, MB (0 when it is gone). */
function pssOf(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** When a process started, in clock ticks since boot (0 when it is gone): orders the decoders. */
const startOf = (pid: number): number => Number(statOf(`/proc/${pid}/stat`)?.f[19] ?? 0);

const cmdlineOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/**
 * Decoder processes (decoder/child.mjs, through their sandbox's set-up) among `pids`; with `engine`,
 * also its children that are still a copy of it: a decoder between the engine's fork and its exec
 * (taskset, then the sandbox, then Node with child.mjs). Such a copy shows the engine's command line
 * and, until it execs, a resident set the size of the engine's anonymous memory (59-66 MB here),
 * every page of it the engine's own, shared copy-on-write: counted as the engine, it made the
 * engine look 50-75 MB larger in about half of the jobs (issue 22z; PSS did not move). It is the
 * decoder being started, so it is counted as one (the next job's, when the job's own is running).
 */
function decodersOf(pids: number[], engine?: number): number[] {
  const forked = engine === undefined ? '' : cmdlineOf(engine);
  return pids.filter((p) => {
    const cmd = cmdlineOf(p);
    return cmd.includes('child.mjs') || (p !== engine && forked !== '' && cmd === forked);
  });
}

/**
 * The processes' memory counted once per page: private (anonymous) pages of each, plus each file
 * range they map (Node's own binary, the libraries) once, at the most any of them has resident.
 * Node's code is in both the engine and the decoder, and the machine holds it once.
 */
function distinctMb(pids: number[]): number {
  let anon = 0;
  const files = new Map<string, number>();
  for (const pid of pids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
    } catch {
      continue;
    }
    let key: string | undefined;
    for (const line of text.split('\n')) {
      const head = /^[0-9a-f]+-[0-9a-f]+ \S+ ([0-9a-f]+) \S+ (\d+)\s*(.*)$/.exec(line);
      if (head) {
        key = head[2] !== '0' ? `${head[3]}@${head[1]}` : undefined;
        continue;
      }
      if (!line.startsWith('Rss:')) continue;
      const kb = Number(line.slice(4).trim().split(' ')[0]);
      if (key) files.set(key, Math.max(files.get(key) ?? 0, kb));
      else anon += kb;
    }
  }
  let total = anon;
  for (const kb of files.values()) total += kb;
  return total / 1024;
}

/**
 * Samples a running job's process tree every 100 ms, from this (parent) process: the engine (and
 * any helper under it that is no decoder), the job's own decoder (the oldest one; the next job's,
 * started ahead, is younger) and the whole tree (JobMemory).
 */
function sampleTree(root: number): () => JobMemory {
  const peak: JobMemory = { rss: 0, pss: 0, treeRss: 0, treeOnce: 0, engineRss: 0, decoderRss: 0 };
  const sample = () => {
    const pids = processTree(root);
    const decoders = decodersOf(pids, root).sort((a, b) => startOf(a) - startOf(b));
    const engine = pids.filter((p) => !decoders.includes(p));
    const own = decoders.slice(0, 1);
    const sum = (ps: number[], f: (p: number) => number) => ps.reduce((a, p) => a + f(p), 0);
    const e = sum(engine, rssOf), d = sum(own, rssOf);
    peak.engineRss = Math.max(peak.engineRss, e);
    peak.decoderRss = Math.max(peak.decoderRss, d);
    peak.rss = Math.max(peak.rss, e + d);
    peak.pss = Math.max(peak.pss, sum([...engine, ...own], pssOf));
    peak.treeRss = Math.max(peak.treeRss, sum(pids, rssOf));
    peak.treeOnce = Math.max(peak.treeOnce, distinctMb(pids));
  };
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

/**
 * CPU time of this process plus its reaped children (ffmpeg), in ms. Unlike wall time it barely
 * moves when other work shares the cores, so "video seconds per CPU second" is the real-time
 * factor of one job on one core of its own.
 */
function cpuMs(): number {
  const u = process.cpuUsage();
  let children = 0;
  const f = statOf('/proc/self/stat')?.f;
  // cutime + cstime, clock ticks of 10 ms. Not Linux: children's time is not available; the figure
  // then covers this process only.
  if (f) children = (Number(f[13]) + Number(f[14])) * 10;
  return (u.user + u.system) / 1000 + children;
}

/** Child side: one measurement, printed as a JSON line. */
async function measure(mode: Measure['mode'], path: string, exercise: string): Promise<Measure> {
  if (mode === 'decode') {
    const info = await probe(path);
    const t0 = performance.now(), c0 = cpuMs();
    let frames = 0;
    // The same frames the engine decodes for this exercise (its own sampling rate), no more.
    const fps = exerciseDef(exercise)?.sampleFps ?? ENGINE_FPS;
    for await (const _f of decodeFrames(path, info, { ...defaultDecodeOptions, fps })) frames++;
    return { mode, videoMs: info.durationMs, wallMs: performance.now() - t0, cpuMs: cpuMs() - c0, frames, peakRssMb: process.resourceUsage().maxRSS / 1024 };
  }
  const engine = createPoseEngine();
  await engine.ready();
  const c0 = cpuMs();
  const out = await engine.analyzeDetailed({ videoPath: path, exerciseId: exercise });
  return {
    mode, videoMs: out.stats.videoMs, wallMs: out.stats.wallMs, cpuMs: cpuMs() - c0, frames: out.stats.frames,
    peakRssMb: process.resourceUsage().maxRSS / 1024, valid: out.result.repetitions.filter((r) => r.is_valid_rep).length,
    pose: out.stats.pose,
  };
}

const self = fileURLToPath(import.meta.url);

function runChild(mode: 'decode', path: string, exercise: string): Measure {
  const r = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', mode, path, exercise], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr.split("\n").filter((l) => l.length < 400).slice(-15).join("\n")}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measure;
}

/** An analysis in a fresh process (its own peak RSS), for the timings. */
function runAnalysis(path: string, exercise: string): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', self, '--child', 'analyze', path, exercise], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    c.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Measure) : reject(new Error(`child exited ${code}`))));
  });
}

/**
 * A job's memory as a worker holds it: the clip analysed through an engine host (the engine
 * process a worker runs, models loaded, its decoder started ahead and the next one started during
 * the job), the engine process and every process under it sampled from here while the job runs.
 * The host runs a one-second job first, unsampled, so each measured job finds the engine as a
 * worker's next job does (models loaded, a job run before it), not the models' loading.
 */
let host: EngineHost | undefined;
async function jobMemory(path: string, exercise: string): Promise<JobMemory & { decoderMb: number }> {
  if (!host) {
    host = createEngineHost();
    const dir = mkdtempSync(join(tmpdir(), 'bench-engine-warm-'));
    try {
      const clip = await shortClip(1);
      writeFileSync(join(dir, 'warm.mp4'), clip.bytes);
      await host.analyzeForJob({ videoPath: join(dir, 'warm.mp4'), exerciseId: clip.exercise });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const root = processTree(process.pid).find((p) => p !== process.pid && !decodersOf([p]).length && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('engine-child'));
  if (!root) throw new Error('no engine process under the bench');
  const stop = sampleTree(root);
  await host.analyzeForJob({ videoPath: path, exerciseId: exercise });
  return { ...stop(), decoderMb: host.stats().decoderPeakRssMb };
}

/** The clip's analysis in a fresh process (timings), then its job memory through the engine host. */
async function withJobMemory(path: string, exercise: string): Promise<Measure> {
  const a = await runAnalysis(path, exercise);
  const { decoderMb, ...job } = await jobMemory(path, exercise);
  return { ...a, job, decoderPeakMb: decoderMb };
}

/** Table columns of a JobMemory: the job's figure first. */
const JOB_COLUMNS = ['job MB', 'job PSS', 'job engine', 'job decoder', 'with next MB', 'once MB'];
const jobCells = (m: JobMemory) => [m.rss, m.pss, m.engineRss, m.decoderRss, m.treeRss, m.treeOnce].map((v) => v.toFixed(0));

/** The same measurement without blocking, so two can run at once (one job per core). */
function runChildAsync(mode: Measure['mode'], path: string, exercise: string): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', self, '--child', mode, path, exercise], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    c.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Measure) : reject(new Error(`child exited ${code}`))));
  });
}

async function main() {
  // `-- --only a.mp4,b.mp4` measures a few clips, `--no-hd` skips the full-HD and 4K clips, `--no-4k` the 4K ones and `--no-long` the ten-minute video (a
  // quick look); the default is every labelled clip and the long video. `--any` adds each clip
  // analysed as `any` beside its own exercise.
  const oi = process.argv.indexOf('--only');
  const only = oi > 0 ? new Set(process.argv[oi + 1]?.split(',') ?? []) : null;
  // Clips of exercises not in the catalog yet cannot be analysed; they are named and skipped.
  const all = loadLabels();
  const skipped = all?.filter((l) => !exerciseDef(l.exercise)).map((l) => `${l.file} (${l.exercise})`) ?? [];
  const labels = all?.filter((l) => exerciseDef(l.exercise) && (!only || only.has(l.file))) ?? null;
  if (skipped.length) console.log(`not in the catalog, skipped: ${skipped.join(', ')}`);
  if (!labels || labels.length === 0) {
    console.error(`no clips at ${videosDir}`);
    process.exitCode = 1;
    return;
  }
  console.log(`engine ${createPoseEngine().version}; decode at the engine's rate (${ENGINE_FPS} fps, or the exercise's own), max side ${defaultDecodeOptions.maxSide}px; one job at a time`);
  const rows = [['clip', 'video s', 'decode s', 'decode RTF', 'analyze s', 'analyze RTF', 'CPU RTF', 'ms/frame', 'decode ms/f', 'landmarks ms/f', 'detector ms/run', 'runs', 'warp ms/f', 'engine MB', 'decoder MB', ...JOB_COLUMNS]];
  let vid = 0, wall = 0, peak = 0, decWall = 0, frames = 0, cpu = 0, decCpu = 0;
  const worst: Partial<Record<keyof JobMemory, { mb: number; clip: string }>> = {};
  const sum: PoseTimings = { frames: 0, warpMs: 0, detectorMs: 0, landmarkMs: 0, detections: 0, landmarkRuns: 0, cuts: 0 };
  for (const l of labels) {
    const path = join(videosDir, l.file);
    const d = runChild('decode', path, l.exercise);
    const a = await withJobMemory(path, l.exercise);
    vid += a.videoMs; wall += a.wallMs; peak = Math.max(peak, a.peakRssMb);
    for (const k of Object.keys(a.job!) as (keyof JobMemory)[]) if (a.job![k] > (worst[k]?.mb ?? 0)) worst[k] = { mb: a.job![k], clip: l.file };
    decWall += d.wallMs; frames += a.frames; cpu += a.cpuMs; decCpu += d.cpuMs;
    const p = a.pose!;
    for (const k of Object.keys(sum) as (keyof PoseTimings)[]) sum[k] += p[k];
    rows.push([l.file, (a.videoMs / 1000).toFixed(1), (d.wallMs / 1000).toFixed(2), (d.videoMs / d.wallMs).toFixed(1),
      (a.wallMs / 1000).toFixed(2), (a.videoMs / a.wallMs).toFixed(2), (a.videoMs / a.cpuMs).toFixed(2), (a.wallMs / a.frames).toFixed(1), (d.wallMs / d.frames).toFixed(1),
      (p.landmarkMs / p.frames).toFixed(1), p.detections ? (p.detectorMs / p.detections).toFixed(1) : '-', String(p.detections),
      (p.warpMs / p.frames).toFixed(2), a.peakRssMb.toFixed(0), a.decoderPeakMb!.toFixed(0), ...jobCells(a.job!)]);
  }
  print(rows);
  if (!process.argv.includes('--no-hd')) await largeClips(worst);
  console.log(`\nall clips: ${(vid / 1000).toFixed(1)} s of video in ${(wall / 1000).toFixed(1)} s, RTF ${(vid / wall).toFixed(2)} ` +
    `(decoding alone, same run: RTF ${(vid / decWall).toFixed(1)}); highest peak RSS ${peak.toFixed(0)} MB`);
  const w = (k: keyof JobMemory) => `${worst[k]!.mb.toFixed(0)} MB (${worst[k]!.clip})`;
  console.log(`memory per job, engine and decoder together (the engine process a worker runs and the job's decoder, resident sets ` +
    `added up as ps does, sampled every 100 ms; the peak of each job, the most over every job above): ${w('rss')} at most, target under 300 MB; engine ${w('engineRss')}, decoder ` +
    `${w('decoderRss')}; their PSS (smaps_rollup) ${w('pss')}; with the next job's decoder started ahead ${w('treeRss')}, ` +
    `${w('treeOnce')} counting each page once`);
  console.log(`CPU time (node + ffmpeg), i.e. one job on a core of its own: ${(cpu / 1000).toFixed(1)} s, RTF ${(vid / cpu).toFixed(2)} ` +
    `= ${(cpu / frames).toFixed(1)} ms per frame; decoding alone ${(decCpu / frames).toFixed(1)} ms per frame, RTF ${(vid / decCpu).toFixed(1)}; ` +
    `load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`);
  console.log(`per frame (${frames} frames): whole engine ${(wall / frames).toFixed(1)} ms = decode ${(decWall / frames).toFixed(1)} + ` +
    `landmarks ${(sum.landmarkMs / frames).toFixed(1)} (${(sum.landmarkMs / sum.landmarkRuns).toFixed(1)} per run, ${sum.landmarkRuns} runs) + ` +
    `detector ${(sum.detectorMs / frames).toFixed(1)} (${(sum.detectorMs / Math.max(1, sum.detections)).toFixed(1)} per run, ${sum.detections} runs) + ` +
    `warp ${(sum.warpMs / frames).toFixed(2)} + the rest ${((wall - decWall - sum.landmarkMs - sum.detectorMs - sum.warpMs) / frames).toFixed(1)}; ${sum.cuts} cuts`);

  if (process.argv.includes('--any')) await anyVsNamed(labels);

  // Two jobs at once on this machine's cores: each job's own real-time factor.
  const pair = labels.slice(0, 2);
  const both = await Promise.all(pair.map((l) => runChildAsync('analyze', join(videosDir, l.file), l.exercise)));
  console.log(`\ntwo jobs in parallel: ` + both.map((m, i) => `${pair[i]!.file} RTF ${(m.videoMs / m.wallMs).toFixed(2)}`).join(', ') +
    `; combined throughput ${(both.reduce((a, m) => a + m.videoMs, 0) / Math.max(...both.map((m) => m.wallMs))).toFixed(2)} video s per wall s`);

  if (process.argv.includes('--no-long')) return;
  // Long video: the largest clip looped (stream copy) to about ten minutes, in a temp dir.
  const size = (l: { file: string }) => statSync(join(videosDir, l.file)).size;
  const longest = labels.reduce((a, b) => (size(a) >= size(b) ? a : b));
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-'));
  try {
    const long = join(dir, 'ten-minutes.mp4');
    writeFileSync(long, await looped(join(videosDir, longest.file), 600));
    const short = await withJobMemory(join(videosDir, longest.file), longest.exercise);
    const a = await withJobMemory(long, longest.exercise);
    console.log(`\nlong video (${longest.file} looped): ${(a.videoMs / 1000).toFixed(0)} s, analysed in ${(a.wallMs / 1000).toFixed(0)} s, ` +
      `RTF ${(a.videoMs / a.wallMs).toFixed(2)} (CPU RTF ${(a.videoMs / a.cpuMs).toFixed(2)}), ${a.valid} valid reps`);
    print([['video', 'length s', 'engine MB', 'decoder MB', ...JOB_COLUMNS],
      [longest.file, (short.videoMs / 1000).toFixed(0), short.peakRssMb.toFixed(0), short.decoderPeakMb!.toFixed(0), ...jobCells(short.job!)],
      ['ten-minute concatenation', (a.videoMs / 1000).toFixed(0), a.peakRssMb.toFixed(0), a.decoderPeakMb!.toFixed(0), ...jobCells(a.job!)]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Memory per job at full HD and 4K (`--no-hd` skips both, `--no-4k` the 4K ones): no shared clip is
 * 1080p or 4K, so they are made here from shared clips, full HD by bench/support/full-hd.ts
 * (landscape 1920x1080, portrait 1080x1920), 4K by the machine's FFmpeg (bench/support/four-k.ts:
 * landscape 3840x2160 and portrait 2160x3840 at 30 and 60 fps, the portrait 60 fps one in HEVC as
 * iPhones film), and run through the engine host as every clip is. Their peaks count in the run's
 * highest (`worst`). `--keep-4k DIR` keeps the 4K clips in DIR and reuses them on the next run
 * (making them takes 1-2 min of CPU each).
 */
async function largeClips(worst: Partial<Record<keyof JobMemory, { mb: number; clip: string }>>) {
  const sources: { file: string; exercise: string; w: number; h: number; fps?: number; codec?: FourK['codec'] }[] = [
    { file: 'aithletique_squat_front.mp4', exercise: 'squat', w: 1920, h: 1080 },
    { file: 'rohanx01_squat_side.mp4', exercise: 'squat', w: 1080, h: 1920 },
  ];
  if (!process.argv.includes('--no-4k')) {
    if (existsSync(ffmpegPath)) {
      sources.push(
        { file: 'aithletique_squat_front.mp4', exercise: 'squat', w: 3840, h: 2160, fps: 30, codec: 'h264' },
        { file: 'rohanx01_squat_side.mp4', exercise: 'squat', w: 2160, h: 3840, fps: 30, codec: 'h264' },
        { file: 'aithletique_squat_front.mp4', exercise: 'squat', w: 3840, h: 2160, fps: 60, codec: 'h264' },
        { file: 'rohanx01_squat_side.mp4', exercise: 'squat', w: 2160, h: 3840, fps: 60, codec: 'hevc' },
      );
    } else {
      console.log(`\nno FFmpeg at ${ffmpegPath} (set FFMPEG): the 4K clips are skipped`);
    }
  }
  const present = sources.filter((s) => existsSync(join(videosDir, s.file)));
  if (!present.length) return;
  const ki = process.argv.indexOf('--keep-4k');
  const keep = ki > 0 ? process.argv[ki + 1] : undefined;
  if (keep) mkdirSync(keep, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-hd-'));
  try {
    const rows = [['full HD and 4K, made from', 'size', 'fps', 'codec', 'video s', 'engine MB', 'decoder MB', ...JOB_COLUMNS]];
    for (const s of present) {
      const tag = `${s.w}x${s.h}${s.fps ? `-${s.fps}-${s.codec}` : ''}`;
      const path = join(s.fps && keep ? keep : dir, `${tag}.mp4`);
      if (!s.fps) writeFileSync(path, await rescaled(join(videosDir, s.file), s.w, s.h, 10));
      else if (!existsSync(path)) made4k(join(videosDir, s.file), path, { w: s.w, h: s.h, fps: s.fps, codec: s.codec! }, 10);
      const a = await withJobMemory(path, s.exercise);
      const name = `${s.file} at ${s.w}x${s.h}${s.fps ? ` ${s.fps} fps ${s.codec}` : ''}`;
      for (const k of Object.keys(a.job!) as (keyof JobMemory)[]) if (a.job![k] > (worst[k]?.mb ?? 0)) worst[k] = { mb: a.job![k], clip: name };
      rows.push([s.file, `${s.w}x${s.h}`, String(s.fps ?? 30), s.codec ?? 'h264', (a.videoMs / 1000).toFixed(1), a.peakRssMb.toFixed(0), a.decoderPeakMb!.toFixed(0), ...jobCells(a.job!)]);
    }
    console.log('');
    print(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `--any`: each clip analysed as `any` beside the same clip as its own exercise, in the same run.
 * Decoding and the pose model are the same work for both, so the whole-job figures (fresh child
 * processes: CPU real-time factor, peak RSS) and the pipeline alone (in process, on the same poses,
 * best of five) show what finding the movement from the pose costs over a definition's signal.
 */
async function anyVsNamed(labels: { file: string; exercise: string }[]) {
  const any = exerciseDef('any')!;
  const engine = createPoseEngine();
  await engine.ready();
  const rows = [['clip', 'as', 'CPU RTF', 'as any', 'CPU RTF', 'ratio', 'peak RSS MB', 'any peak RSS MB', 'pipeline ms', 'any pipeline ms']];
  let named = 0, anyCpu = 0, video = 0, pipeNamed = 0, pipeAny = 0;
  for (const l of labels) {
    const path = join(videosDir, l.file);
    const a = await runAnalysis(path, l.exercise), b = await runAnalysis(path, 'any');
    const x = await engine.extractPoses({ videoPath: path, exerciseId: l.exercise });
    const best = (def: NonNullable<ReturnType<typeof exerciseDef>>) => {
      let ms = Infinity;
      for (let i = 0; i < 5; i++) { const t = performance.now(); analyzePoses(def, x.poses, x.fps, { width: x.width, height: x.height }); ms = Math.min(ms, performance.now() - t); }
      return ms;
    };
    const pn = best(exerciseDef(l.exercise)!), pa = best(any);
    named += a.cpuMs; anyCpu += b.cpuMs; video += a.videoMs; pipeNamed += pn; pipeAny += pa;
    rows.push([l.file, l.exercise, (a.videoMs / a.cpuMs).toFixed(2), 'any', (b.videoMs / b.cpuMs).toFixed(2), (b.cpuMs / a.cpuMs).toFixed(2),
      a.peakRssMb.toFixed(0), b.peakRssMb.toFixed(0), pn.toFixed(1), pa.toFixed(1)]);
  }
  console.log('\nas any, beside the same clips as their own exercise (same run):');
  print(rows);
  console.log(`any: CPU ${(anyCpu / 1000).toFixed(1)} s against ${(named / 1000).toFixed(1)} s as named (ratio ${(anyCpu / named).toFixed(2)}; RTF ${(video / anyCpu).toFixed(2)} vs ${(video / named).toFixed(2)}); ` +
    `pipeline alone ${pipeAny.toFixed(0)} ms vs ${pipeNamed.toFixed(0)} ms for ${(video / 1000).toFixed(0)} s of video`);
}

function print(rows: string[][]) {
  const w = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((v, c) => (c === 0 ? v.padEnd(w[c]!) : v.padStart(w[c]!))).join('  '));
}

if (process.argv[2] === '--child') {
  const [, , , mode, path, exercise] = process.argv;
  console.log(JSON.stringify(await measure(mode as Measure['mode'], resolve(path!), exercise!)));
} else {
  try {
    await main();
  } finally {
    await host?.close();
  }
}
