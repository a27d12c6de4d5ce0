// A throwaway PostgreSQL for tests and benches: initdb into a temp dir, pg_ctl start on a free port
// (TCP on loopback, and its unix socket in the temp dir), stopped and deleted afterwards. Run as
// the postgres user via runuser when we are root (PostgreSQL refuses to run as root). With
// POSTGRES_TEST_URL set, that server is used instead (each caller still gets a fresh database).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes.js';

const serverBinaries = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));

/** `pg_config --bindir`; else Debian's newest /usr/lib/postgresql/N/bin (libpq-dev's pg_config names /usr/bin). */
function bindir(): string | undefined {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (serverBinaries(dir)) return dir;
  } catch {
    /* no pg_config */
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => join(root, v, 'bin')).find(serverBinaries);
}

const bin = bindir();
const asRoot = process.getuid?.() === 0;
const postgresUser = asRoot ? spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }) : undefined;
const pgUid = postgresUser?.status === 0 ? Number(postgresUser.stdout.trim()) : undefined;
const pgGid = asRoot && pgUid !== undefined ? Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim()) : undefined;

/** Why the PostgreSQL tests cannot run here, or undefined when they can. */
export const NO_POSTGRES: string | undefined = process.env.POSTGRES_TEST_URL
  ? undefined
  : !bin
    ? 'PostgreSQL server binaries not found (pg_config --bindir has no initdb/pg_ctl): apt-get install postgresql'
    : asRoot && pgUid === undefined
      ? 'running as root and there is no postgres user to run the server as'
      : undefined;

export interface TestPostgres {
  /** The server's URL (database "postgres"). */
  url: string;
  /** A new, empty database on the server; its libpq URL. */
  freshDatabase(): Promise<string>;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[]): void {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const res = spawnSync(file, argv, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${res.status}): ${res.stderr}${res.stdout}`);
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function creator(url: string) {
  return async () => {
    const name = `rc_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    return withDatabase(url, name);
  };
}

/** Starts a throwaway cluster (or uses POSTGRES_TEST_URL). Call only when NO_POSTGRES is undefined. */
export async function startPostgres(): Promise<TestPostgres> {
  const external = process.env.POSTGRES_TEST_URL;
  if (external) return { url: external, freshDatabase: creator(external), stop: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'rc-pg-'));
  const [data, socket, log] = [join(dir, 'data'), join(dir, 'sock'), join(dir, 'server.log')];
  if (asRoot) {
    chownSync(dir, pgUid!, pgGid!);
    chmodSync(dir, 0o700);
  }
  const port = await freePort();
  try {
    run(join(bin!, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    run('mkdir', ['-p', socket]);
    const options = `-p ${port} -k ${socket} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=32MB`;
    run(join(bin!, 'pg_ctl'), ['-D', data, '-o', options, '-l', log, '-w', '-t', '60', 'start']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    freshDatabase: creator(url),
    async stop() {
      try {
        run(join(bin!, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
