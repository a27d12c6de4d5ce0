// The files behind DATA_DIR/read-models.db: generation files, the symlink that names the live one,
// and the lock that keeps rebuilds of one DATA_DIR one at a time. rebuild.ts says why a symlink.
import { closeSync, existsSync, fsync, fsyncSync, lstatSync, openSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { basename, dirname, join } from 'node:path';

/**
 * Atomically points the live path at `file`; returns the generation it pointed at before (to drop
 * with retire() once the swap is durable and the ledger lock released).
 *
 * Then marks the file swapped out with a commit: servers notice a change to the file they hold by
 * PRAGMA data_version, not by a stat per read (live.ts), and this commit is what moves it. Call
 * this with appends held back (the ledger's lock), so no append after the swap is acknowledged
 * before every server can see that it must reopen.
 */
export function swapIn(livePath: string, file: string, busyTimeoutMs = 5000): string | undefined {
  const previous = currentGeneration(livePath);
  // Opened before the rename: a first rebuild replaces a plain file, which has no name afterwards.
  const old = existsSync(livePath) && realpathSync(livePath) !== file ? new Database(livePath, { fileMustExist: true, timeout: busyTimeoutMs }) : undefined;
  try {
    const link = `${livePath}.swap-${process.pid}`;
    rmSync(link, { force: true });
    symlinkSync(basename(file), link);
    renameSync(link, livePath);
    if (old) markRetired(old);
  } finally {
    old?.close();
  }
  return previous !== file ? previous : undefined;
}

/** A commit to a swapped-out generation (its own table, so nothing a reader reads changes). */
function markRetired(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS retired (at TEXT NOT NULL)');
  db.prepare('INSERT INTO retired (at) VALUES (?)').run(new Date().toISOString());
}

/** Makes the swap durable, then deletes the previous generation (unlinking a big file takes a while). */
export function retire(livePath: string, previous: string | undefined): void {
  fsyncDir(dirname(livePath));
  // Servers still holding the previous file keep their open descriptors; nobody opens it again.
  if (previous) removeDb(previous);
}

function currentGeneration(livePath: string): string | undefined {
  const st = lstatSync(livePath, { throwIfNoEntry: false });
  return st?.isSymbolicLink() ? join(dirname(livePath), readlinkSync(livePath)) : undefined;
}

export const isLive = (livePath: string, file: string) => currentGeneration(livePath) === file;

export function removeDb(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(file + suffix, { force: true });
}

/** Files of rebuilds that crashed before their swap; the lock says no other rebuild is running. */
export function removeLeftovers(livePath: string): void {
  const dir = dirname(livePath);
  const live = currentGeneration(livePath);
  const prefix = `${basename(livePath)}.rebuild-`;
  for (const name of readdirSync(dir)) {
    if (name.startsWith(`${basename(livePath)}.swap-`)) rmSync(join(dir, name), { force: true });
    if (!name.startsWith(prefix)) continue;
    const base = join(dir, name.replace(/-(wal|shm|journal)$/, ''));
    if (base !== live) rmSync(join(dir, name), { force: true });
  }
}

const fsyncDir = (dir: string) => fsyncFile(dir);

/**
 * fsyncFile on the thread pool, for a thread that has other work meanwhile. The sync is handed to
 * the pool before this returns (the open is synchronous, a few microseconds), so it runs even while
 * the caller's next work is synchronous and gives the event loop no turn (a rebuild's index builds).
 */
export function fsyncFileLater(path: string): Promise<void> {
  const fd = openSync(path, 'r');
  return new Promise((resolve, reject) =>
    fsync(fd, (err) => {
      closeSync(fd);
      if (err) reject(err);
      else resolve();
    }),
  );
}

export function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class RebuildBusyError extends Error {
  override name = 'RebuildBusyError';
}

/** One rebuild at a time per DATA_DIR; a lock left by a dead process is taken over. */
export function takeRebuildLock(livePath: string): { release(): void } {
  const path = `${livePath}.rebuild.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return { release: () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSafe(path));
      if (holder && isAlive(holder)) throw new RebuildBusyError(`another rebuild (pid ${holder}) is running on ${dirname(livePath)}`);
      rmSync(path, { force: true });
    }
  }
  throw new RebuildBusyError(`could not take ${path}`);
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
