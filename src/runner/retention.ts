// Video retention: a claimed video is personal data kept only VIDEO_RETENTION_HOURS after its job
// ends (completed, failed or cancelled); then its bytes are deleted and VideoPurged goes into the
// key's ledger, where the audit shows it. Results and pose tracks stay.
//
// Bytes first, event second: the event records a deletion that happened. Several sweepers (one
// per API node) may race for the same job: deleting twice is harmless, and the event is decided
// against the key's folded state (`kept`) and appended with the expected revision, so the loser's
// append conflicts, re-reads, and finds nothing left to record.
import { decideJob } from '../commands/jobs.js';
import { keptOf } from '../commands/state.js';
import { videosDue } from '../projections/jobs.js';
import type { Service } from '../service.js';

const retentionMs = (svc: Service) => svc.config.videoRetentionHours * 3_600_000;

/** Deletes one ended job's video if its retention is over; true when this call recorded the purge. */
export async function purgeVideo(svc: Service, keyId: string, jobId: string): Promise<boolean> {
  const now = svc.clock();
  const kept = keptOf((await svc.ledger.load(keyId)).state, jobId);
  if (!kept || Date.parse(kept.endedAt) + retentionMs(svc) > now.getTime()) return false;
  await svc.storage.discardFrozen(jobId);
  // Claimed bytes leave the spot at submission; a crash between the claim and that delete leaves them.
  await svc.storage.discard(kept.handle);
  const decision = await svc.ledger.handle(keyId, (s) => decideJob({ type: 'PurgeVideo', jobId, retentionMs: retentionMs(svc), now: now.toISOString() }, s));
  if (decision.events.length > 0) svc.metrics.videosPurged.inc();
  return decision.events.length > 0;
}

/** One pass of the retention sweep: purges up to `batch` videos whose retention is over. */
export async function purgeOnce(svc: Service, batch = 200): Promise<number> {
  const endedBy = new Date(svc.clock().getTime() - retentionMs(svc));
  let purged = 0;
  for (const row of videosDue(svc.readDb(), endedBy, batch)) {
    if (await purgeVideo(svc, row.key_id, row.job_id)) purged++;
  }
  return purged;
}

/**
 * Called by whoever records a job's end (the runner, a cancel). With VIDEO_RETENTION_HOURS=0 the
 * video goes at once; a failure here is left to the sweep, which retries every interval.
 */
export async function jobEnded(svc: Service, keyId: string, jobId: string): Promise<void> {
  if (svc.config.videoRetentionHours > 0) return;
  await purgeVideo(svc, keyId, jobId).catch(() => undefined);
}
