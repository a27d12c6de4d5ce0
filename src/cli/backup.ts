// `admin backup DIR` and `admin restore DIR` (src/backup.ts says how the copy stays consistent).
import { resolve } from 'node:path';
import { backup, restore } from '../backup.js';
import { OperatorError } from '../commands/errors.js';
import type { Config } from '../config.js';
import { printJson, type Command } from './command.js';

function sqliteOnly(config: Config): void {
  if (config.eventStore === 'kurrentdb') throw new OperatorError('backup and restore copy the SQLite ledger; with EVENT_STORE=kurrentdb back KurrentDB up with its own tools');
  if (config.eventStore === 'postgres') throw new OperatorError(postgresBackupAdvice(config));
}

/**
 * With the ledger in PostgreSQL this command copies nothing, and says so: the ledger is the only
 * state that matters and the server's own tools copy it consistently; a node's DATA_DIR holds only
 * read models, which are rebuilt from the ledger.
 */
export function postgresBackupAdvice(config: Config): string {
  const s = config.postgres.schema;
  return [
    `with EVENT_STORE=postgres the ledger lives in PostgreSQL and backup/restore copy nothing. Back the ledger up with the server's own tools:`,
    `  pg_dump --schema=${s} --format=custom (one consistent snapshot; pg_restore it into an empty database), or`,
    `  base backups with WAL archiving (pg_basebackup, pgBackRest, a managed service's snapshots) for point-in-time recovery.`,
    `After a restore, \`audit verify --digest FILE\` proves the restored ledger against a digest kept earlier.`,
    `Not needed: this node's read models (DATA_DIR/read-models.db) are rebuilt from the ledger on first start or by \`projections rebuild\`.`,
    config.storageDriver === 's3'
      ? `Not covered: the videos in the S3 bucket ${config.s3.bucket} (use the bucket's versioning or replication).`
      : `Not covered: the videos and the URL-signing key under ${config.dataDir}/storage (STORAGE_DRIVER=disk): copy that directory with the filesystem.`,
  ].join('\n');
}

export const backupCommand: Command = {
  usage: 'backup DIR',
  summary: 'take a consistent copy of DATA_DIR into DIR (new or empty) while the API serves',
  details: [
    'Copies the read models, then the ledger, with SQLite\'s online backup API (writers keep going),',
    'catches the copied read models up to the copied ledger, then copies the videos the copy still',
    'needs (live jobs, uploaded spots), every pose track and the URL-signing key; DIR/backup.json',
    'records the ledger position and its chain root. With STORAGE_DRIVER=s3 the videos stay in the',
    'bucket. Prints the manifest {"position","root","events","jobs","files",...}.',
  ].join('\n'),
  args: ['DIR'],
  async run({ positionals, config, out }) {
    const cfg = config();
    sqliteOnly(cfg);
    const manifest = await backup(cfg.dataDir, resolve(positionals[0]!));
    printJson(out, { ...manifest, files: manifest.files.length });
  },
};

export const restoreCommand: Command = {
  usage: 'restore DIR',
  createsData: true,
  summary: 'restore a backup from DIR into DATA_DIR, which must be empty (or not exist)',
  details: [
    'Refuses a DATA_DIR that holds anything, and a backup whose ledger does not match its manifest.',
    'Then start the service on DATA_DIR; `projections verify` and `audit verify` check the result.',
  ].join('\n'),
  args: ['DIR'],
  async run({ positionals, config, out }) {
    const cfg = config();
    sqliteOnly(cfg);
    const manifest = await restore(resolve(positionals[0]!), cfg.dataDir);
    printJson(out, { restored: cfg.dataDir, position: manifest.position, root: manifest.root, events: manifest.events, jobs: manifest.jobs });
  },
};
