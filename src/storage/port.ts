// Video storage. The partner PUTs bytes straight to a signed URL on the storage host; the API
// only mints URLs, reads sizes, and freezes the bytes a job will analyze.

export interface FrozenVideo {
  path: string;
  /** Removes any local temporary copy; the frozen object itself stays until `discardFrozen`. */
  release(): Promise<void>;
}

export interface VideoStorage {
  readonly driver: 'disk' | 's3';
  /**
   * A URL that authorizes one PUT of the spot's bytes until `expiresAt`, signed as at `signedAt`
   * (default now): the same arguments give the same URL, so an idempotent replay re-signs it.
   */
  uploadUrl(handle: string, expiresAt: Date, signedAt?: Date): Promise<string>;
  /** Bytes stored at the spot now; 0 when nothing has landed. Throws StorageUnavailableError. */
  stat(handle: string): Promise<number>;
  /**
   * Copies the spot's current bytes to an immutable object owned by the job, so later PUTs to the
   * signed URL cannot change what the job analyzes. Returns the frozen size (0 when none landed).
   */
  freeze(handle: string, jobId: string): Promise<number>;
  /** A local file with the job's frozen bytes, for the engine. */
  openFrozen(jobId: string): Promise<FrozenVideo>;
  discardFrozen(jobId: string): Promise<void>;
  /** Deletes the bytes at the spot (expired, or claimed and frozen). */
  discard(handle: string): Promise<void>;
  /**
   * Stores a completed job's pose track (gzipped JSON, see storage/poses.ts) beside its result.
   * Not in the ledger: it is large and derived; here it survives `projections rebuild`, and with
   * the S3 driver every node can serve it.
   */
  savePose(jobId: string, gzipped: Buffer): Promise<void>;
  /** The stored pose track, undefined when none was stored. Throws StorageUnavailableError. */
  loadPose(jobId: string): Promise<Buffer | undefined>;
  /** Resolves when the storage answers (readiness probe); throws StorageUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
}
