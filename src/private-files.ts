// DATA_DIR holds partners' videos, the ledger and the upload-signing key: nothing in it is for other
// users of the machine. Files are created private (umask 077 for the whole process, so SQLite's
// database, WAL and SHM files, read models, uploads, pose tracks and backups are 0600 and folders
// 0700 from birth), and at start every entry is checked: one readable or writable by group or
// others (an older version's 0644, a copy made with cp) is made private and the fix is logged; an
// entry that cannot be fixed (another user's) stops the start with a message naming it.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isMainThread } from 'node:worker_threads';

export const PRIVATE_UMASK = 0o077;
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Everything this process creates from now on is private to its user. */
export function createPrivately(): void {
  // Worker threads share the process's umask and may not set it.
  if (isMainThread) process.umask(PRIVATE_UMASK);
}

export class DataDirNotPrivate extends Error {
  override name = 'DataDirNotPrivate';
}

export interface PrivacyReport {
  checked: number;
  /** Paths (relative to the root) whose mode was tightened. */
  fixed: string[];
}

/**
 * Walks `root` (not following symbolic links) and takes group and other permissions away from every
 * file and folder. Throws DataDirNotPrivate for an entry it may not change.
 */
export function makePrivate(root: string): PrivacyReport {
  const report: PrivacyReport = { checked: 0, fixed: [] };
  const visit = (path: string, rel: string, isRoot: boolean) => {
    // The root may be a symbolic link an operator made on purpose: judge what it points to.
    const st = isRoot ? statSync(path) : lstatSync(path);
    if (st.isSymbolicLink()) return;
    report.checked++;
    if ((st.mode & 0o077) !== 0) {
      try {
        chmodSync(path, st.mode & 0o700);
      } catch (err) {
        throw new DataDirNotPrivate(`${path} is readable by other users (mode ${(st.mode & 0o777).toString(8)}) and cannot be made private: ${(err as Error).message}`);
      }
      report.fixed.push(rel || '.');
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name), rel ? `${rel}/${name}` : name, false);
  };
  visit(root, '', true);
  return report;
}

export class DirectoryNotCreated extends Error {
  override name = 'DirectoryNotCreated';
}

/**
 * `mkdir -p` that fails instead of spinning. Node's `mkdirSync(path, { recursive: true })` loops
 * forever when mkdir answers ENOENT although the parent exists (any path under /proc or /sys: libuv
 * takes the ENOENT for a missing parent, finds the parent there and tries again), so a DATA_DIR
 * like /proc/nope hung the server and every admin command. Here each missing level is made on its
 * own, from the top down, and the first refusal is thrown naming `what` and the path.
 */
export function makeDirs(path: string, what: string, mode = DIR_MODE): void {
  const missing: string[] = [];
  for (let dir = resolve(path); !existsSync(dir); dir = dirname(dir)) {
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && statSync(dir).isDirectory()) continue; // made by another process meanwhile
      throw new DirectoryNotCreated(`${what} ${path} cannot be created: ${(err as Error).message}`);
    }
  }
  if (!statSync(path).isDirectory()) throw new DirectoryNotCreated(`${what} ${path} is not a directory`);
}

/** Every entry under `root` that group or others may read, write or enter (for tests and `admin`). */
export function exposedEntries(root: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(`${path} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return out;
}
