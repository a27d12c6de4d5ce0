// The default storage driver: files under DATA_DIR/storage. Uploads land in live/<handle> by
// rename from a temp file; a claim hard-links them to frozen/<jobId>, so a later rename over
// live/<handle> cannot change the inode the job analyzes.
import { constants, linkSync, statSync } from 'node:fs';
import { access, open, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { makeDirs } from '../private-files.js';
import { StorageUnavailableError, type VideoStorage } from './port.js';
import { loadOrCreateSecret, sign } from './signing.js';

export interface DiskLayout {
  live: string;
  frozen: string;
  tmp: string;
  poses: string;
  secret: Buffer;
}

export function diskLayout(dataDir: string): DiskLayout {
  const root = join(dataDir, 'storage');
  const layout = { live: join(root, 'live'), frozen: join(root, 'frozen'), tmp: join(root, 'tmp'), poses: join(root, 'poses') };
  for (const dir of Object.values(layout)) makeDirs(dir, 'the storage folder');
  return { ...layout, secret: loadOrCreateSecret(join(root, 'signing.key')) };
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    if (isMissing(err)) return 0;
    throw new StorageUnavailableError(`stat failed: ${(err as Error).message}`);
  }
}

export function createDiskStorage(layout: DiskLayout, publicUrl: string): VideoStorage {
  const live = (handle: string) => join(layout.live, handle);
  const frozen = (jobId: string) => join(layout.frozen, jobId);
  const pose = (jobId: string) => join(layout.poses, `${jobId}.json.gz`);

  return {
    driver: 'disk',
    async uploadUrl(handle, expiresAt) {
      const expires = Math.floor(expiresAt.getTime() / 1000);
      return `${publicUrl}/uploads/${handle}?expires=${expires}&signature=${sign(layout.secret, handle, expires)}`;
    },
    stat: (handle) => sizeOf(live(handle)),
    async freeze(handle, jobId) {
      // One link straight to the job's name: link() is atomic and a job id is new, so there is no
      // half-made name to hide behind a temp file and a rename (issue 22: one file operation less
      // in line with every submission). The link and the stat of what it linked are made in line
      // on this thread: two metadata calls on the local disk cost ~0.1 ms together here, while a
      // round trip each through the fs thread pool made them ~0.4 ms of every submission's wait
      // (issue 22j, measured in the README). Nothing is written or fsync'd by either.
      try {
        linkSync(live(handle), frozen(jobId));
        return statSync(frozen(jobId)).size;
      } catch (err) {
        if (isMissing(err)) return 0;
        throw new StorageUnavailableError(`freeze failed: ${(err as Error).message}`);
      }
    },
    async openFrozen(jobId) {
      return { path: frozen(jobId), release: async () => {} };
    },
    async discardFrozen(jobId) {
      await rm(frozen(jobId), { force: true });
    },
    async discard(handle) {
      await unlink(live(handle)).catch((err) => {
        if (!isMissing(err)) throw err;
      });
    },
    async savePose(jobId, gzipped) {
      // Temp file, fsync, rename: a reader never sees half a track, a crash leaves none.
      const tmp = join(layout.tmp, `pose-${randomBytes(8).toString('hex')}`);
      try {
        const file = await open(tmp, 'w', 0o600);
        try {
          await file.writeFile(gzipped);
          await file.sync();
        } finally {
          await file.close();
        }
        await rename(tmp, pose(jobId));
      } catch (err) {
        await rm(tmp, { force: true });
        throw new StorageUnavailableError(`pose write failed: ${(err as Error).message}`);
      }
    },
    async loadPose(jobId) {
      try {
        return await readFile(pose(jobId));
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw new StorageUnavailableError(`pose read failed: ${(err as Error).message}`);
      }
    },
    async ping() {
      // Every directory the driver writes to must be there and writable (a lost mount, a chmod).
      try {
        await Promise.all([layout.live, layout.frozen, layout.tmp, layout.poses].map((dir) => access(dir, constants.W_OK | constants.X_OK)));
      } catch (err) {
        throw new StorageUnavailableError(`storage directory unusable: ${(err as Error).message}`);
      }
    },
    async close() {},
  };
}
