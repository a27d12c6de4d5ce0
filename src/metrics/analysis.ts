// Analysis speed as operators watch it: wall-clock seconds per second of video, per analysis.
import { probe } from '../analysis/decode.js';
import type { Metrics } from './registry.js';

/** Best effort: a video ffprobe cannot read (the job failed anyway) is simply not counted. */
export async function observeAnalysis(metrics: Metrics, videoPath: string, wallSeconds: number): Promise<void> {
  try {
    const { durationMs } = await probe(videoPath);
    if (durationMs > 0) metrics.analysisRatio.observe(wallSeconds / (durationMs / 1000));
  } catch {
    /* not a readable video: nothing to divide by */
  }
}
