// The S3 driver: any S3-compatible store (AWS S3, MinIO, R2, ...). Partners PUT straight to a
// presigned URL; the API reads sizes with HeadObject and, on a claim, copies the bytes to an
// immutable key owned by the job, so a later PUT to the same signed URL cannot change them.
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { StorageUnavailableError, type VideoStorage } from './port.js';

/** Where a spot's bytes land, and where a job's frozen copy lives. The handle is the object name. */
export const spotKey = (handle: string) => `uploads/${handle}`;
export const frozenKey = (jobId: string) => `frozen/${jobId}`;
export const poseKey = (jobId: string) => `poses/${jobId}.json.gz`;

/** SigV4 refuses presigned URLs valid for more than 7 days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export function s3ClientConfig(s3: Config['s3']): S3ClientConfig {
  return {
    region: s3.region ?? 'us-east-1',
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    forcePathStyle: s3.forcePathStyle,
    // Without the SDK's default credential chain is used (env, profile, instance role...).
    ...(s3.accessKeyId && s3.secretAccessKey ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } } : {}),
    // The default (WHEN_SUPPORTED) pins the empty-body CRC32 into a presigned PUT URL, and then
    // S3, R2 and MinIO reject the partner's real bytes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A storage that hangs must become a 503 storage_stat_unavailable, not a request that never ends.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
  };
}

const status = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const isMissing = (err: unknown) => {
  const name = (err as { name?: string }).name;
  return name === 'NotFound' || name === 'NoSuchKey' || status(err) === 404;
};
const unavailable = (op: string, err: unknown) => new StorageUnavailableError(`S3 ${op} failed: ${(err as Error).name}: ${(err as Error).message}`);

export function createS3Storage(s3: Config['s3'], clock: () => Date = () => new Date(), client = new S3Client(s3ClientConfig(s3))): VideoStorage {
  if (!s3.bucket) throw new Error('the S3 driver needs a bucket');
  const Bucket = s3.bucket;

  async function size(Key: string): Promise<number> {
    try {
      return (await client.send(new HeadObjectCommand({ Bucket, Key }))).ContentLength ?? 0;
    } catch (err) {
      if (isMissing(err)) return 0;
      throw unavailable('HeadObject', err);
    }
  }

  async function remove(Key: string): Promise<void> {
    try {
      await client.send(new DeleteObjectCommand({ Bucket, Key }));
    } catch (err) {
      if (!isMissing(err)) throw unavailable('DeleteObject', err);
    }
  }

  return {
    driver: 's3',
    async uploadUrl(handle, expiresAt, signedAt = clock()) {
      const seconds = Math.ceil((expiresAt.getTime() - signedAt.getTime()) / 1000);
      const expiresIn = Math.min(MAX_PRESIGN_SECONDS, Math.max(1, seconds));
      // No ContentType in the command: it would become a signed header the partner must repeat exactly.
      // signingDate pins X-Amz-Date, so the same spot signs to the same URL (idempotent replays).
      return getSignedUrl(client, new PutObjectCommand({ Bucket, Key: spotKey(handle) }), { expiresIn, signingDate: signedAt });
    },
    stat: (handle) => size(spotKey(handle)),
    async freeze(handle, jobId) {
      // A single CopyObject takes up to 5 GB, which is also the most one presigned PUT can upload.
      try {
        await client.send(new CopyObjectCommand({ Bucket, Key: frozenKey(jobId), CopySource: `${Bucket}/${spotKey(handle).split('/').map(encodeURIComponent).join('/')}` }));
      } catch (err) {
        if (isMissing(err)) return 0;
        throw unavailable('CopyObject', err);
      }
      return size(frozenKey(jobId));
    },
    async openFrozen(jobId) {
      // The engine reads a local file (ffmpeg seeks in it): download to a private temp dir.
      const dir = await mkdtemp(join(tmpdir(), 'rc-frozen-'));
      const path = join(dir, 'video');
      const release = () => rm(dir, { recursive: true, force: true });
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: frozenKey(jobId) }));
        await pipeline(object.Body as Readable, createWriteStream(path, { flags: 'wx' }));
      } catch (err) {
        await release();
        // Gone for good (discarded, never frozen) is not worth a retry; anything else may pass.
        if (isMissing(err)) throw new Error(`no frozen copy of job ${jobId} in the bucket`);
        throw unavailable('GetObject', err);
      }
      return { path, release };
    },
    discardFrozen: (jobId) => remove(frozenKey(jobId)),
    discard: (handle) => remove(spotKey(handle)),
    async savePose(jobId, gzipped) {
      try {
        await client.send(new PutObjectCommand({ Bucket, Key: poseKey(jobId), Body: gzipped, ContentType: 'application/json', ContentEncoding: 'gzip' }));
      } catch (err) {
        throw unavailable('PutObject', err);
      }
    },
    async loadPose(jobId) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: poseKey(jobId) }));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw unavailable('GetObject', err);
      }
    },
    async ping() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (err) {
        throw unavailable('HeadBucket', err);
      }
    },
    async close() {
      client.destroy();
    },
  };
}
