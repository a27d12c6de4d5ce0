// `npm run -s admin -- ...`: operator and auditor commands. Works while the server runs: it appends
// to the same ledger and brings the same read models up to date. Command groups live beside this
// file; this one only dispatches, prints help and maps failures to exit codes (2: bad arguments,
// 1: refused or failed).
import '../runtime/require-node.js'; // first: stops at once on a Node too old for the SQLite addon
import { existsSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadConfigOrExit } from '../boot.js';
import { OperatorError } from '../commands/errors.js';
import type { Config } from '../config.js';
import { RebuildBusyError } from '../projections/rebuild.js';
import { StoreUnavailableError } from '../events/store/port.js';
import { DirectoryNotCreated } from '../private-files.js';
import { openService, paths, type Service } from '../service.js';
import { auditCommand, events } from './audit.js';
import { helpOf, parse, UsageError, type Command } from './command.js';
import { jobs } from './jobs.js';
import { keys } from './keys.js';
import { ledger, verifyCommand } from './ledger.js';
import { backupCommand, restoreCommand } from './backup.js';
import { projections } from './projections.js';
import { migrateCommand } from './migrate.js';
import { webhooks } from './webhooks.js';

/** Groups of sub-commands, and commands that stand alone (audit). */
const groups: Record<string, Record<string, Command> | Command> = { keys, jobs, audit: auditCommand, events, projections, ledger, webhooks, backup: backupCommand, restore: restoreCommand, migrate: migrateCommand };
/** Sub-commands of a stand-alone command: `audit verify` beside `audit KEY_ID`. */
const beside: Record<string, Record<string, Command>> = { audit: { verify: verifyCommand } };

const isCommand = (g: Record<string, Command> | Command): g is Command => typeof (g as Command).run === 'function';

function commandsOf(name: string): Command[] {
  const g = groups[name]!;
  return isCommand(g) ? [g, ...Object.values(beside[name] ?? {})] : Object.values(g);
}

const listing = (cmds: Command[]) => cmds.map((c) => `  ${c.usage}\n      ${c.summary}`).join('\n');

const HELP = `usage: npm run -s admin -- <command> [arguments]    (DATA_DIR selects the data, default ./data)

${listing(Object.keys(groups).flatMap(commandsOf))}

Every command answers --help. Exit status: 0 done, 1 refused or failed, 2 bad arguments.
`;

const groupHelp = (name: string) => `usage: npm run -s admin -- ${name} <command>\n\n${listing(commandsOf(name))}\n`;

const wantsHelp = (args: string[]) => args.includes('--help') || args.includes('-h');

interface Io {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * The data a command is about to open. A DATA_DIR that is a file is named as such (not a stack
 * trace). With the SQLite ledger, a command that reads or changes what is already there refuses a
 * DATA_DIR without a ledger, and creates nothing: a mistyped DATA_DIR would otherwise answer
 * "no keys" (exit 0) and leave a fresh, empty data folder behind. Only `keys create` (an operator
 * issues keys before the first `npm start`) and `restore` may start a new DATA_DIR.
 */
export function checkDataDir(config: Config, createsData: boolean): Config {
  const dir = config.dataDir;
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new OperatorError(`DATA_DIR ${dir} is not a directory`);
  if (!createsData && config.eventStore === 'sqlite' && !existsSync(paths(dir).ledger)) {
    throw new OperatorError(`DATA_DIR ${dir} holds no ledger (${paths(dir).ledger} does not exist): check DATA_DIR; nothing was created`);
  }
  return config;
}

/** Runs one admin invocation; returns the exit code. */
export async function main(argv: string[], io: Io = { out: process.stdout, err: process.stderr }, config: () => Config = loadConfigOrExit): Promise<number> {
  const [first, second, ...rest] = argv;
  // `help` too, as the partner CLI takes it (issue rx: it was "unknown command", exit 2).
  if (first === undefined || first === 'help' || (first.startsWith('-') && wantsHelp([first]))) {
    (first ? io.out : io.err).write(HELP);
    return first ? 0 : 2;
  }
  const group = groups[first];
  if (!group) {
    io.err.write(`error: unknown command "${first}"\n\n${HELP}`);
    return 2;
  }
  let command: Command;
  let args: string[];
  if (isCommand(group)) {
    const sub = second === undefined ? undefined : beside[first]?.[second];
    command = sub ?? group;
    args = argv.slice(sub ? 2 : 1);
  } else {
    if (second === undefined || wantsHelp([second])) {
      (second ? io.out : io.err).write(groupHelp(first));
      return second ? 0 : 2;
    }
    const found = group[second];
    if (!found) {
      io.err.write(`error: unknown command "${first} ${second}"\n\n${groupHelp(first)}`);
      return 2;
    }
    command = found;
    args = rest;
  }
  if (wantsHelp(args)) {
    io.out.write(helpOf(command));
    return 0;
  }

  let svc: Service | undefined;
  let cfg: Config | undefined;
  try {
    const parsed = parse(command, args);
    const code = await command.run({
      ...parsed,
      out: io.out,
      err: io.err,
      config: () => checkDataDir((cfg ??= config()), command.createsData === true),
      service: async () => (svc ??= await openService(checkDataDir((cfg ??= config()), command.createsData === true))),
    });
    return code ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err.write(`error: ${err.message}\n\n${helpOf(command)}`);
      return 2;
    }
    // A ledger or read-model file that cannot be written (a read-only mount or snapshot, an
    // immutable file or folder): every command opens them for writing, the reading ones too (they
    // bring the read models up to date first), so say so and what to do, not SQLite's bare text.
    // (The SQLite store passes these on as StoreUnavailableError with SQLite's own words.)
    const sqlite = /^SQLITE_(READONLY|CANTOPEN)/.test(String((err as { code?: unknown }).code ?? '')) || /attempt to write a readonly database|unable to open database file/.test((err as Error).message ?? '');
    if (sqlite && cfg) {
      io.err.write(`error: a database in DATA_DIR ${cfg.dataDir} cannot be opened for writing (SQLite: ${(err as Error).message}); admin commands open the ledger and read models for writing, the reading ones too. Make DATA_DIR writable, or copy it somewhere writable (cp -a) and run the command with DATA_DIR set to the copy\n`);
      return 1;
    }
    const known = err instanceof OperatorError || err instanceof RebuildBusyError || err instanceof StoreUnavailableError || err instanceof DirectoryNotCreated;
    io.err.write(`error: ${known ? (err as Error).message : String((err as Error).stack ?? err)}\n`);
    return 1;
  } finally {
    await svc?.close().catch(() => undefined);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
