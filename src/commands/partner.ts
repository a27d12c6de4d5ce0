// Partner commands: the I/O around the pure deciders (storage reads, freezing bytes, read-model
// lookups for spots and jobs that have left the decision state).
import { StoreUnavailableError } from '../events/store/port.js';
import { isWellFormedHandle, newHandle, newJobId } from '../ids.js';
import { jobById } from '../projections/jobs.js';
import { uploadByHandle, visibleState } from '../projections/uploads.js';
import type { Service } from '../service.js';
import { StorageUnavailableError } from '../storage/port.js';
import { jobEnded } from '../runner/retention.js';
import {
  CatalogError,
  DomainError,
  InternalError,
  JobNotFound,
  StorageStatUnavailable,
  StoreUnavailable,
  UnknownExercise,
  UploadNotFound,
} from './errors.js';
import { decideJob, needsBytes, type PastSpot } from './jobs.js';
import { spotOf, type KeyState } from './state.js';
import { decideUpload } from './uploads.js';
import { discardSpotLater } from './discard-later.js';

/**
 * Reads a row from the read models; on a miss, catches the projections up once and reads again.
 * With KurrentDB each node follows the ledger on its own, so a GET on one node right after a 201
 * from another could otherwise miss the job.
 */
export async function readFresh<T>(svc: Service, read: () => T | undefined): Promise<T | undefined> {
  const row = read();
  if (row !== undefined) return row;
  await svc.projector.catchUp();
  return read();
}

/** Storage failures become the SPEC's 503 storage_stat_unavailable. */
export async function fromStorage<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof StorageUnavailableError) throw new StorageStatUnavailable();
    throw err;
  }
}

/**
 * Storage reads one mint makes at most (issue 22: a stat per pending spot made a key's mint cost
 * grow with its live spots). Bytes found are recorded by the mint (SpotUploaded), so the spots not
 * yet seen shrink by up to this many per mint; the disk host records every upload before it
 * answers the PUT anyway, so only S3 uploads wait for a mint or a status read to be seen.
 */
const STATS_PER_MINT = 16;

/** `n` of the items at random (all of them when there are no more). */
function sample<T>(items: T[], n: number): T[] {
  for (let i = 0; i < Math.min(n, items.length); i++) {
    const j = i + Math.floor(Math.random() * (items.length - i));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items.slice(0, n);
}

export async function mintSpot(svc: Service, keyId: string) {
  const now = svc.clock();
  const { state } = await svc.ledger.load(keyId);
  // Sizes of live spots whose upload is not recorded yet (an S3 PUT leaves no trace in the ledger).
  const pending = sample(state.spots.entries().filter(([, s]) => s.size === 0 && Date.parse(s.expiresAt) > now.getTime()), STATS_PER_MINT);
  const sizes = await fromStorage(() => Promise.all(pending.map(([handle]) => svc.storage.stat(handle))));
  const observed = Object.fromEntries(pending.map(([handle], i) => [handle, sizes[i]!] as const).filter(([, size]) => size > 0));

  const handle = newHandle();
  const expiresAt = new Date(now.getTime() + svc.config.spotTtlSeconds * 1000);
  const { spotsPerWindow, spotsWindowSeconds: windowSeconds, unclaimedBytesCap } = svc.config;
  const decision = await svc.ledger.handle(keyId, (s) =>
    decideUpload(
      { type: 'MintSpot', handle, expiresAt: expiresAt.toISOString(), now: now.toISOString(), observed, limits: { spotsPerWindow, windowSeconds, unclaimedBytesCap } },
      s,
    ),
  );
  const upload_url = await fromStorage(() => svc.storage.uploadUrl(handle, expiresAt, now));
  // The key's state after the mint, for the RateLimit header.
  return { spot: { handle, upload_url, expires_at: expiresAt.toISOString() }, state: decision.state };
}

/** Called by the storage host when bytes land, and by reads that observe them in storage. */
export async function recordUpload(svc: Service, keyId: string, handle: string, size: number): Promise<void> {
  const now = svc.clock().toISOString();
  await svc.ledger.handle(keyId, (s) => decideUpload({ type: 'RecordUpload', handle, size, now }, s));
}

export async function uploadStatus(svc: Service, keyId: string, handle: string) {
  const row = await readFresh(svc, () => uploadByHandle(svc.readDb(), handle));
  if (!row || row.key_id !== keyId) throw new UploadNotFound();
  let state = visibleState(row, svc.clock());
  if (state === 'minted') {
    const size = await fromStorage(() => svc.storage.stat(handle));
    if (size > 0) {
      await recordUpload(svc, keyId, handle, size);
      state = 'uploaded';
    }
  }
  return { handle, state, expires_at: row.expires_at };
}

function knownExercise(svc: Service, exerciseId: string): boolean {
  try {
    return svc.catalog().some((e) => e.exercise_id === exerciseId);
  } catch {
    throw new CatalogError();
  }
}

/** The read models have not yet projected a claim or expiry that the ledger already holds. */
class ReadModelBehind extends Error {}

/** What the read models say of a spot that is no longer live in the key's decision state. */
function pastSpot(svc: Service, keyId: string, handle: string): PastSpot | undefined {
  const row = uploadByHandle(svc.readDb(), handle);
  if (!row || row.key_id !== keyId) return undefined;
  if (row.state === 'claimed' && row.job_id && row.exercise_id) return { state: 'claimed', jobId: row.job_id, exerciseId: row.exercise_id };
  return { state: 'expired' };
}

export async function submitJob(svc: Service, keyId: string, handle: string, exerciseId: string) {
  if (!knownExercise(svc, exerciseId)) throw new UnknownExercise();
  // Never minted here; also keeps names like "constructor" away from the state's plain-object lookups.
  if (!isWellFormedHandle(handle)) throw new UploadNotFound();
  const now = svc.clock().toISOString();
  const jobId = newJobId();
  const { state, revision } = await svc.ledger.load(keyId);
  if (!spotOf(state, handle)) await svc.projector.catchUp(); // the read model must know every claim we folded

  let size = 0;
  if (needsBytes(state, handle, now)) size = await fromStorage(() => svc.storage.freeze(handle, jobId));
  const discardCopy = () => (size > 0 ? svc.storage.discardFrozen(jobId).catch(() => undefined) : undefined);

  let past: PastSpot | undefined;
  const decide = (s: KeyState) => {
    // The spot left the state while we worked (another process claimed or expired it): until our
    // read model shows that, pastSpot's answer would be wrong (410 for a same-exercise resubmission).
    const settled = () => ['claimed', 'expired'].includes(uploadByHandle(svc.readDb(), handle)?.state ?? '');
    if (!spotOf(s, handle) && spotOf(state, handle) && !settled()) throw new ReadModelBehind();
    past = spotOf(s, handle) ? undefined : pastSpot(svc, keyId, handle);
    return decideJob({ type: 'SubmitJob', handle, exerciseId, jobId, size, past, now }, s);
  };
  let accepted: boolean;
  for (let behind = 0; ; behind++) {
    try {
      accepted = (await svc.ledger.handle(keyId, decide, behind === 0 ? revision : undefined)).events.length > 0;
      break;
    } catch (err) {
      // The catch-up reads the ledger itself, so one pass settles it; the bound guards a stuck store.
      if (err instanceof ReadModelBehind && behind < 5) {
        await svc.projector.catchUp();
        continue;
      }
      await discardCopy();
      if (err instanceof DomainError) throw err;
      // The bytes are frozen but the claim may or may not be on disk: SPEC's internal_error.
      if (size > 0) throw new InternalError();
      if (err instanceof StoreUnavailableError) throw new StoreUnavailable();
      throw err;
    }
  }
  if (!accepted) {
    await discardCopy();
    return { job_id: (past as Extract<PastSpot, { state: 'claimed' }>).jobId, status: 'queued' as const, created: false };
  }
  // The job owns a frozen copy now; the spot's own bytes are no longer needed. Deleted after the
  // answer rather than before it (issue 22: one more file operation in line with each submission),
  // with the other submissions' deletes of the next ~100 ms (discard-later.ts says why).
  discardSpotLater(svc, handle);
  return { job_id: jobId, status: 'queued' as const, created: true };
}

export async function cancelJob(svc: Service, jobId: string, by: { partner: string } | 'operator') {
  const row = await readFresh(svc, () => jobById(svc.readDb(), jobId));
  if (!row || (by !== 'operator' && row.key_id !== by.partner)) throw new JobNotFound();
  const now = svc.clock().toISOString();
  // A job leaves the decision state only when it is terminal, and the read model knows it: finished.
  await svc.ledger.handle(row.key_id, (s) =>
    decideJob({ type: 'CancelJob', jobId, by: by === 'operator' ? 'operator' : 'partner', finished: true, now }, s),
  );
  await jobEnded(svc, row.key_id, jobId);
  return { job_id: jobId, status: 'cancelled' as const };
}

/** What the storage host asks of the ledger: may this spot still receive bytes, and record them. */
export function storageCallbacks(svc: Service) {
  return {
    async acceptsUpload(handle: string): Promise<boolean> {
      const row = uploadByHandle(svc.readDb(), handle);
      return row !== undefined && (['minted', 'uploaded'] as const).includes(visibleState(row, svc.clock()) as 'minted');
    },
    async uploaded(handle: string, size: number): Promise<void> {
      const row = uploadByHandle(svc.readDb(), handle);
      if (row) await recordUpload(svc, row.key_id, handle, size);
    },
  };
}
