// Pose tracks at rest: the engine's PoseTrack as compact JSON, gzipped once when the job completes
// (a minute of video at 10 fps is ~600 frames x 51 numbers, ~200 KB of JSON, ~60 KB gzipped), so
// GET /v1/jobs/{job_id}/pose hands the stored bytes straight to a client that accepts gzip.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { PoseTrack } from '../analysis/engine.js';

export const encodePose = (pose: PoseTrack): Buffer => gzipSync(JSON.stringify(pose));

export const decodePose = (gzipped: Buffer): Buffer => gunzipSync(gzipped);
