// The shape of an admin command and the one parser every command goes through, so each answers
// --help with its own usage and refuses bad arguments the same way (message, usage, exit 2).
import { parseArgs } from 'node:util';
import type { Service } from '../service.js';
import type { Config } from '../config.js';

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Context {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** Opens the service over DATA_DIR (read models caught up); only commands that need it call it. */
  service(): Promise<Service>;
  config(): Config;
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream & { isTTY?: boolean };
}

export interface Command {
  /** e.g. "keys set-limit KEY_ID N|none" */
  usage: string;
  summary: string;
  /** Extra lines under the usage in --help. */
  details?: string;
  options?: Options;
  /** Names of the positional arguments, in order; a trailing "?" marks an optional one. */
  args?: string[];
  /** May open a DATA_DIR that holds no ledger yet (admin.ts checkDataDir): `keys create` and `restore`. */
  createsData?: boolean;
  /** Returns the exit code (0 when omitted). */
  run(ctx: Context): Promise<number | void>;
}

export const helpOf = (c: Command): string =>
  `usage: npm run -s admin -- ${c.usage}\n\n  ${c.summary}\n${c.details ? `\n${c.details.replace(/^/gm, '  ')}\n` : ''}`;

export function parse(c: Command, argv: string[]): Pick<Context, 'values' | 'positionals'> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, tokens: true, options: c.options ?? {} });
  } catch (err) {
    const message = (err as Error).message;
    // parseArgs reads "-3" as an option: say what was wrong with it (set-limit KEY -3, --limit -3).
    const negative = /^Unknown option '(-\d[\d.]*)'|^Option '(--[\w-]+)(?: <value>)?' argument is ambiguous/.exec(message);
    if (negative) throw new UsageError(negative[1] ? `"${negative[1]}": a negative number is not accepted` : `${negative[2]} got a value starting with "-": a negative number is not accepted (for text, write ${negative[2]}=VALUE)`);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  // parseArgs keeps the last of a repeated option: `--limit 2 --limit 3` would quietly issue a key
  // with limit 3. Refused, like any other ambiguous argument.
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || c.options?.[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  const names = c.args ?? [];
  const required = names.filter((n) => !n.endsWith('?')).length;
  const { positionals } = parsed;
  if (positionals.length < required) throw new UsageError(`missing ${names.slice(positionals.length, required).join(' ')}`);
  if (positionals.length > names.length) throw new UsageError(`unexpected argument "${positionals[names.length]}"`);
  return { values: parsed.values as Context['values'], positionals };
}

export const printJson = (out: NodeJS.WritableStream, value: unknown): void => void out.write(`${JSON.stringify(value)}\n`);

/** Writes respecting backpressure, so exporting a million events keeps memory flat. */
export async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', resolve));
}
