// `admin backup DIR` and `admin restore DIR`: a consistent copy of a DATA_DIR taken while the API
// serves, and its restoration into an empty DATA_DIR.
//
// Consistency: the read models are copied first and the ledger second, each with SQLite's online
// backup API in one step (one read transaction, so the copy is a snapshot and never restarts under
// concurrent writers). The read models can therefore only be behind the ledger copy, never ahead
// of it (they are projected after each append commits); the copy is then caught up from the copied
// ledger, so the two describe the same position. The videos copied are those the copied ledger
// still needs: the frozen files of its live (queued or processing) jobs and the bytes of its
// uploaded, unclaimed spots; plus every stored pose track and the URL-signing key. The secrets
// vault (secrets.db, sealed webhook secrets) is copied the same way, with its master key when the
// first start created it in DATA_DIR (secrets.key, mode 0600); a key from SECRETS_KEY_FILE stays
// where the operator keeps it, and the manifest names it by id so a restore can be checked.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, isAbsolute } from 'node:path';
import Database from 'better-sqlite3';
import { OperatorError } from './commands/errors.js';
import { SqliteEventStore } from './events/store/sqlite.js';
import { checkpointOf, openReadModels } from './projections/runner.js';
import { openLedgerSource, replayInto } from './projections/replay.js';
import { createPrivately, makeDirs, makePrivate } from './private-files.js';
import { paths } from './service.js';
import { masterKeyId, masterKeyPath, parseMasterKey } from './secrets/master-key.js';

const MANIFEST = 'backup.json';

export interface BackupManifest {
  format: 1;
  createdAt: string;
  /** The ledger copy's head and its chain digest (README "Tamper evidence"). */
  position: number;
  root: string;
  events: number;
  jobs: { live: number; total: number };
  files: string[];
  /** The master key the vault's data keys are wrapped by: in the backup, or the operator's file. */
  secrets?: { masterKeyId: string | null; masterKey: 'secrets.key' | 'SECRETS_KEY_FILE' | 'none' };
}

/** Copies a live SQLite database with the online backup API, all pages in one step. */
async function copyDatabase(from: string, to: string): Promise<void> {
  const db = new Database(from, { readonly: true, fileMustExist: true });
  try {
    await db.backup(to, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
}

const storageOf = (dir: string) => join(dir, 'storage');

function copyIfThere(from: string, to: string, copied: string[], name: string): void {
  if (!existsSync(from)) return;
  copyFileSync(from, to);
  copied.push(name);
}

/** The real path of `path`, which may not exist yet: its deepest existing folder resolved, the rest appended. */
function realPath(path: string): string {
  const full = resolve(path);
  if (existsSync(full)) return realpathSync(full);
  const parent = dirname(full);
  return parent === full ? full : join(realPath(parent), basename(full));
}

const isWithin = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

export async function backup(dataDir: string, target: string, clock: () => Date = () => new Date()): Promise<BackupManifest> {
  const live = paths(dataDir);
  if (!existsSync(live.ledger)) throw new OperatorError(`no ledger at ${live.ledger} (is DATA_DIR right?)`);
  if (existsSync(target) && !statSync(target).isDirectory()) throw new OperatorError(`${target} is not a directory: back up into a new or empty directory`);
  if (existsSync(target) && readdirSync(target).length > 0) throw new OperatorError(`${target} is not empty: back up into a new or empty directory`);
  // A backup inside DATA_DIR is lost with it, and is copied again by the next backup's walk of it.
  if (isWithin(realPath(dataDir), realPath(target))) throw new OperatorError(`${target} is inside DATA_DIR ${dataDir}: keep a backup outside DATA_DIR`);
  // A backup holds what DATA_DIR holds: private to this user like it (0600 files, 0700 folders).
  createPrivately();
  makeDirs(target, 'the backup folder');
  const out = paths(target);
  try {
    if (existsSync(live.readModels)) await copyDatabase(realpathSync(live.readModels), out.readModels);
    await copyDatabase(live.ledger, out.ledger);

    // Bring the copied read models to the copied ledger's position (or build them if there were none).
    const source = openLedgerSource(out.ledger);
    // Caught up as the live file projects with the SQLite ledger: results left in it (projections/job-results.ts).
    const models = openReadModels(out.readModels, undefined, out.ledger);
    let manifest: BackupManifest;
    try {
      if (checkpointOf(models) > source.lastPosition()) throw new Error('the read-model copy is ahead of the ledger copy');
      replayInto(source, models);
      models.pragma('journal_mode = DELETE');
      // The copy is hashed to its head even if the live ledger's one-time chaining had not finished.
      const store = new SqliteEventStore(out.ledger);
      const digest = await store.completeChain().then(() => store.digest()).finally(() => store.close());
      const liveJobs = models.prepare<[], { job_id: string }>("SELECT job_id FROM jobs WHERE status IN ('queued', 'processing')").all();
      const spots = models.prepare<[], { handle: string }>("SELECT handle FROM uploads WHERE state = 'uploaded'").all();
      const total = models.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM jobs').get()!.n;
      const files: string[] = [];
      const from = storageOf(dataDir);
      const to = storageOf(target);
      if (existsSync(from)) {
        for (const dir of ['live', 'frozen', 'poses']) mkdirSync(join(to, dir), { recursive: true });
        copyIfThere(join(from, 'signing.key'), join(to, 'signing.key'), files, 'storage/signing.key');
        for (const { job_id } of liveJobs) copyIfThere(join(from, 'frozen', job_id), join(to, 'frozen', job_id), files, `storage/frozen/${job_id}`);
        for (const { handle } of spots) copyIfThere(join(from, 'live', handle), join(to, 'live', handle), files, `storage/live/${handle}`);
        const poses = join(from, 'poses');
        for (const name of existsSync(poses) ? readdirSync(poses) : []) copyIfThere(join(poses, name), join(to, 'poses', name), files, `storage/poses/${name}`);
      }
      manifest = {
        format: 1,
        createdAt: clock().toISOString(),
        position: digest.position,
        root: digest.root,
        events: source.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events').get()!.n,
        jobs: { live: liveJobs.length, total },
        files,
      };
    } finally {
      models.close();
      source.close();
    }
    // The vault after the ledger: a secret is sealed before its registration is appended, so every
    // endpoint in the ledger copy has its key in the vault copy; one sealed between the two copies
    // is an orphan there, which the sweeper's reconcile destroys.
    const vaultFrom = paths(dataDir).secrets;
    if (existsSync(vaultFrom)) {
      await copyDatabase(vaultFrom, paths(target).secrets);
      manifest.files.push('secrets.db');
    }
    const keyFile = masterKeyPath(dataDir);
    let secrets: BackupManifest['secrets'] = { masterKeyId: null, masterKey: 'none' };
    if (existsSync(keyFile)) {
      copyFileSync(keyFile, join(target, 'secrets.key'));
      chmodSync(join(target, 'secrets.key'), 0o600);
      manifest.files.push('secrets.key');
      secrets = { masterKeyId: masterKeyId(parseMasterKey(readFileSync(keyFile), keyFile)), masterKey: 'secrets.key' };
    } else if (process.env.SECRETS_KEY_FILE && existsSync(process.env.SECRETS_KEY_FILE)) {
      const file = process.env.SECRETS_KEY_FILE;
      secrets = { masterKeyId: masterKeyId(parseMasterKey(readFileSync(file), file)), masterKey: 'SECRETS_KEY_FILE' };
    }
    manifest.secrets = secrets;
    // One self-contained file per database: no -wal beside the copies.
    const ledger = new Database(out.ledger);
    ledger.pragma('journal_mode = DELETE');
    ledger.close();
    writeFileSync(join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    // copyFileSync gives a copy its source's mode, whatever the umask: close what came over open.
    makePrivate(target);
    return manifest;
  } catch (err) {
    // Never leave something that looks like a backup but is not one.
    rmSync(join(target, MANIFEST), { force: true });
    throw err;
  }
}

export async function restore(from: string, dataDir: string): Promise<BackupManifest> {
  const manifestFile = join(from, MANIFEST);
  if (!existsSync(manifestFile)) throw new OperatorError(`${from} is not a backup (no ${MANIFEST}; an interrupted backup has none)`);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new OperatorError(`DATA_DIR ${dataDir} is not empty: restore only into an empty directory (move what is there aside first)`);
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as BackupManifest;
  } catch {
    throw new OperatorError(`${from} is not a backup (its ${MANIFEST} is not JSON)`);
  }
  const src = paths(from);
  // The ledger copy must be the one the manifest describes, hash chain and all.
  const copy = new Database(src.ledger, { readonly: true, fileMustExist: true });
  try {
    const tip = copy.prepare<[], { position: number; root: Buffer }>('SELECT position, root FROM event_hashes ORDER BY position DESC LIMIT 1').get();
    const head = copy.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events').get()?.p ?? 0;
    const [position, root] = [tip?.position ?? 0, tip?.root.toString('hex') ?? '0'.repeat(64)];
    if (position !== manifest.position || head !== manifest.position || root !== manifest.root) {
      throw new OperatorError(`the ledger in ${from} does not match its manifest (head ${head}, hashed to ${position}, root ${root}): the backup was changed`);
    }
  } finally {
    copy.close();
  }
  if (!existsSync(src.readModels)) throw new OperatorError(`${from} has no read-models.db: not a complete backup`);
  createPrivately();
  makeDirs(dataDir, 'DATA_DIR');
  const dst = paths(dataDir);
  copyFileSync(src.ledger, dst.ledger);
  copyFileSync(src.readModels, dst.readModels);
  for (const file of manifest.files) {
    mkdirSync(join(dataDir, file, '..'), { recursive: true });
    copyFileSync(join(from, file), join(dataDir, file));
    if (file === 'secrets.key') chmodSync(join(dataDir, file), 0o600);
  }
  makePrivate(dataDir);
  return manifest;
}
