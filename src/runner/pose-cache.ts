// Poses already extracted from the same bytes, reused (an extra, not what the job rates stand on):
// a partner who submits the same video again (a retry, another exercise id for the same file) gets
// its poses without a second decode and pose-model pass; counting, form rules and feedback run
// again. Kept in the engine process's memory only, under a key of
//   the partner's API key + the exercise id (its sampling rate) + the SHA-256 of the bytes,
// so one partner's upload never answers faster for another (no timing tells them what others
// sent), and for as long as the video itself is kept (VIDEO_RETENTION_HOURS after its job: 0 keeps
// nothing). The engine process is one engine version, so a result from other poses cannot come out.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { ExtractedPoses } from '../analysis/index.js';
import { ByteBudgetMap } from '../runtime/byte-budget-map.js';

/** What a job allows: whose poses these are, and how long they may be kept (ms; 0: not at all). */
export interface PoseReuse {
  scope: string;
  forMs: number;
}

/** Memory the cache may hold: ~370 bytes per analysed frame, so ~45,000 frames (an hour at 12 fps). */
const MAX_BYTES = 16 * 1024 * 1024;

async function sha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

const sizeOf = (x: ExtractedPoses) => x.poses.reduce((s, p) => s + p.packed.byteLength + (p.depth?.byteLength ?? 0) + 64, 256);

export interface PoseCache {
  /** The cached poses for this video under `reuse`, or those `extract` gives (then kept). */
  get(videoPath: string, exerciseId: string, reuse: PoseReuse | undefined, extract: () => Promise<ExtractedPoses>): Promise<{ poses: ExtractedPoses; reused: boolean }>;
}

export function createPoseCache(maxBytes = MAX_BYTES, now = () => Date.now()): PoseCache {
  // Insertion order is recency order: a hit is stored again as the newest, eviction takes the oldest.
  const entries = new ByteBudgetMap<string, { poses: ExtractedPoses; until: number; bytes: number }>(maxBytes);
  return {
    async get(videoPath, exerciseId, reuse, extract) {
      if (!reuse || !(reuse.forMs > 0)) return { poses: await extract(), reused: false };
      for (const [k, e] of entries) if (e.until <= now()) entries.delete(k);
      const key = JSON.stringify([reuse.scope, exerciseId, await sha256(videoPath)]);
      const hit = entries.get(key);
      if (hit) {
        entries.set(key, hit, hit.bytes);
        return { poses: hit.poses, reused: true };
      }
      const poses = await extract();
      const bytes = sizeOf(poses);
      entries.set(key, { poses, until: now() + reuse.forMs, bytes }, bytes);
      return { poses, reused: false };
    },
  };
}
