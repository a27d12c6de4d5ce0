// Pose tracks at rest: the engine's PoseTrack as compact JSON, gzipped once when the job completes
// (pushup_side_homegym.mp4, 10.4 s: 157 frames x 23 landmarks, 76 KB of JSON, 25 KB gzipped), so
// GET /v1/jobs/{job_id}/pose hands the stored bytes straight to a client that accepts gzip.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { PoseTrack } from '../analysis/engine.js';

export const encodePose = (pose: PoseTrack): Buffer => gzipSync(JSON.stringify(pose));

export const decodePose = (gzipped: Buffer): Buffer => gunzipSync(gzipped);
