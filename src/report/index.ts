// `cli analyze ... --report FILE.html`: gathers what the report shows (the job's result, its pose
// track when the server offers one, frames from the local video) and writes the page.
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AnalysisResult } from '../analysis/result.js';
import { extractStills, type VideoStills } from './frames.js';
import { renderReport } from './html.js';
import { exerciseSignal, type SignalSeries } from './signal.js';
import type { PoseTrackLike } from './skeleton.js';

export interface ReportRequest {
  jobId: string;
  result: AnalysisResult;
  exercise: { exercise_id: string; name: string };
  videoPath: string;
  /** The job's pose track, or why there is none. */
  pose: PoseTrackLike | { unavailable: string };
  outFile: string;
}

export interface ReportSummary {
  attempts: number;
  evidenceImages: number;
  skeletons: boolean;
  chart: boolean;
  notes: string[];
  bytes: number;
}

export async function writeReport(req: ReportRequest): Promise<ReportSummary> {
  const notes: string[] = [];
  const pose = 'unavailable' in req.pose ? undefined : req.pose;
  if (!pose) notes.push(`No pose track (${(req.pose as { unavailable: string }).unavailable}): frames are shown without the skeleton and there is no signal chart.`);
  const times = req.result.repetitions.flatMap((r) => r.issues.map((i) => i.evidence_timestamp_ms));
  let stills: VideoStills | undefined;
  try {
    stills = await extractStills(req.videoPath, times);
  } catch (err) {
    notes.push(`The local video could not be decoded (${(err as Error).message}): no evidence frames.`);
  }
  let signal: SignalSeries | undefined;
  if (pose) {
    try {
      signal = exerciseSignal(req.exercise.exercise_id, pose);
      if (!signal) notes.push(`This client does not know how to chart "${req.exercise.exercise_id}": no signal chart.`);
    } catch (err) {
      notes.push(`The signal could not be computed (${(err as Error).message}): no signal chart.`);
    }
  }
  const html = renderReport({
    jobId: req.jobId,
    result: req.result,
    exercise: req.exercise,
    videoName: basename(req.videoPath),
    generatedAt: new Date(),
    stills,
    pose,
    signal,
    notes,
  });
  await writeFile(req.outFile, html);
  return {
    attempts: req.result.repetitions.length,
    evidenceImages: stills ? times.filter((t) => stills!.frames.has(t)).length : 0,
    skeletons: pose !== undefined,
    chart: signal !== undefined,
    notes,
    bytes: Buffer.byteLength(html),
  };
}
