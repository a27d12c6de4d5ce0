// `npm run -s cli -- <command>`: the partner's command-line client, built on @rep-coach/client.
// analyze uploads a local video, waits for the job and prints a table per attempt (or the job as
// JSON, or writes an HTML report); exercises, jobs list, jobs show and identity cover the rest.
// Exit status: 0 done (job completed), 1 job failed or cancelled, or the API refused, 2 bad arguments.
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient, RepCoachError, UNKNOWN_EXERCISE_MESSAGE, type Job, type RepCoachClient } from '@rep-coach/client';
import { writeReport, type ReportSummary } from '../report/index.js';
import { exercisesText, identityText, jobsText, jobText } from './client/format.js';
import { analyzeProgress } from './client/progress.js';

type Out = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
export interface Io {
  out: Out;
  err: Out;
  env: Record<string, string | undefined>;
}

class UsageError extends Error {}

const DEFAULT_API = 'http://127.0.0.1:8080';

const HELP = `usage: npm run -s cli -- <command> [options]

  analyze VIDEO --exercise ID [--json] [--report FILE.html] [--poll-interval SECONDS]
      upload a video, wait for its analysis, print one row per attempt
      (--json: the job exactly as GET /v1/jobs/{job_id} returns it; --report: an HTML report)
  exercises [--json]                 the exercise catalog
  jobs list [--status S] [--limit N] [--cursor C] [--json]
                                     your jobs, newest first
  jobs show JOB_ID [--json] [--report FILE.html --video VIDEO --exercise ID]
                                     one job, with its result once completed
  identity [--json]                  your partner identity and usage

Every command takes --api URL (default $REP_COACH_API_URL, else ${DEFAULT_API}) and
--key KEY (default $REP_COACH_API_KEY). Exit status: 0 done, 1 job failed or cancelled or the
API refused, 2 bad arguments.
`;

const common = {
  api: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = Record<string, string | boolean | undefined>;

/**
 * `--poll-interval -1`: parseArgs takes "-1" for an option and calls the argument "ambiguous". A
 * value that reads as a negative number is the option's value (as `--poll-interval=-1` is), so
 * the option's own check says what is wrong with it.
 */
function negativeValuesJoined(argv: string[], options: Record<string, { type: 'string' | 'boolean' }>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = /^--([\w-]+)$/.exec(argv[i]!)?.[1];
    const next = argv[i + 1];
    if (name && options[name]?.type === 'string' && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${argv[i]}=${next}`);
      i++;
    } else out.push(argv[i]!);
  }
  return out;
}

function parse(argv: string[], options: Record<string, { type: 'string' | 'boolean'; short?: string }>, args: string[]): { values: Values; positionals: string[] } {
  let parsed;
  const all = { ...common, ...options };
  try {
    parsed = parseArgs({ args: negativeValuesJoined(argv, all), allowPositionals: true, strict: true, tokens: true, options: all });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  // parseArgs keeps the last of a repeated option (`--limit 2 --limit 3`): refused, as admin does.
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  if (parsed.values.help) return { values: parsed.values, positionals: parsed.positionals };
  if (parsed.positionals.length < args.length) throw new UsageError(`missing ${args.slice(parsed.positionals.length).join(' ')}`);
  if (parsed.positionals.length > args.length) throw new UsageError(`unexpected argument "${parsed.positionals[args.length]}"`);
  return { values: parsed.values, positionals: parsed.positionals };
}

function clientFrom(values: Values, env: Io['env']): RepCoachClient {
  const api = (values.api as string | undefined) ?? env.REP_COACH_API_URL ?? DEFAULT_API;
  const key = (values.key as string | undefined) ?? env.REP_COACH_API_KEY;
  // Name where the bad value came from: the option, or the variable when no --api was given.
  const source = values.api === undefined && env.REP_COACH_API_URL !== undefined ? 'REP_COACH_API_URL' : '--api';
  let url: URL;
  try {
    url = new URL(api);
  } catch {
    throw new UsageError(`${source} must be a URL, got "${api}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${source} must be an http(s) URL, got "${api}"`);
  if (!key) throw new UsageError('no API key: pass --key KEY or set REP_COACH_API_KEY');
  try {
    return createClient({ baseUrl: api, apiKey: key });
  } catch (err) {
    // A key that no header can carry (a line break inside): named by where it came from.
    throw new UsageError(`${values.key === undefined ? 'REP_COACH_API_KEY' : '--key'}: ${(err as Error).message}`);
  }
}

async function existingFile(path: string, what: string): Promise<string> {
  const full = resolve(path);
  const s = await stat(full).catch(() => undefined);
  if (!s?.isFile()) throw new UsageError(`${what} not found or not a file: ${path}`);
  return full;
}

async function writableTarget(path: string): Promise<string> {
  const full = resolve(path);
  const dir = await stat(dirname(full)).catch(() => undefined);
  if (!dir?.isDirectory()) throw new UsageError(`--report: the folder ${dirname(full)} does not exist`);
  return full;
}

/** How every refusal is told: the API's code, the HTTP status, its message, the request id to quote. */
const errorLine = (err: RepCoachError) => `error: ${err.code}${err.status ? ` (HTTP ${err.status})` : ''}: ${err.message}${err.requestId ? ` [request id ${err.requestId}]` : ''}\n`;

const help = (io: Io) => (io.out.write(HELP), 0);

const printJson = (io: Io, value: unknown) => io.out.write(`${JSON.stringify(value)}\n`);

/** Exit status of a finished job, with the reason on stderr. */
function jobExit(io: Io, job: Job): number {
  if (job.status === 'completed') return 0;
  if (job.status === 'failed') io.err.write(`job ${job.job_id} failed: ${job.error_code}: ${job.message}\n`);
  else io.err.write(`job ${job.job_id} ${job.status}\n`);
  return 1;
}

async function report(client: RepCoachClient, io: Io, job: Job, exerciseId: string, videoPath: string, outFile: string): Promise<ReportSummary | undefined> {
  if (job.status !== 'completed' || !job.result) {
    io.err.write(`no report: job ${job.job_id} is ${job.status}\n`);
    return undefined;
  }
  let pose: Parameters<typeof writeReport>[0]['pose'];
  try {
    pose = await client.getJobPose({ job_id: job.job_id });
  } catch (err) {
    // A server without pose tracks, a job completed before they were kept, or a pose read that
    // failed after retries: the job is done, so the report is still written, without skeletons.
    if (!(err instanceof RepCoachError)) throw err;
    pose = { unavailable: `${err.code}: ${err.message}` };
  }
  const exercises = await client.listExercises().catch(() => ({ exercises: [] }));
  const name = exercises.exercises.find((e) => e.exercise_id === exerciseId)?.name ?? exerciseId;
  const summary = await writeReport({ jobId: job.job_id, result: job.result, exercise: { exercise_id: exerciseId, name }, videoPath, pose, outFile });
  io.err.write(`report: ${outFile} (${summary.attempts} attempt cards, ${summary.evidenceImages} evidence frames${summary.evidenceImages && summary.skeletons ? ' with skeletons' : ''}${summary.chart ? ', signal chart' : ''}, ${Math.round(summary.bytes / 1024)} KiB)\n`);
  for (const note of summary.notes) io.err.write(`report: ${note}\n`);
  return summary;
}

async function analyze(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { exercise: { type: 'string', short: 'e' }, report: { type: 'string' }, 'poll-interval': { type: 'string' } }, ['VIDEO']);
  if (values.help) return help(io);
  const exerciseId = values.exercise as string | undefined;
  if (!exerciseId) throw new UsageError('missing --exercise ID (see `npm run -s cli -- exercises`)');
  const pollSeconds = values['poll-interval'] === undefined ? 10 : Number(values['poll-interval']);
  if (!Number.isFinite(pollSeconds) || pollSeconds <= 0) throw new UsageError(`--poll-interval must be a positive number of seconds, got "${values['poll-interval']}"`);
  const videoPath = await existingFile(positionals[0]!, 'video file');
  const reportFile = typeof values.report === 'string' ? await writableTarget(values.report) : undefined;
  const client = clientFrom(values, io.env);

  // The catalog first (client.analyze checks it before minting): a wrong id is a bad argument,
  // found before anything is uploaded, and told in the server's words plus the ids it knows.
  const { exercises } = await client.listExercises();
  if (!exercises.some((e) => e.exercise_id === exerciseId)) {
    const err = new RepCoachError({ code: 'unknown_exercise', message: UNKNOWN_EXERCISE_MESSAGE, status: 404 });
    io.err.write(`${errorLine(err)}unknown exercise "${exerciseId}"; known: ${exercises.map((e) => e.exercise_id).join(', ')}\n`);
    return 2;
  }
  const progress = analyzeProgress(io.err);
  let job: Job;
  try {
    job = await client.analyze(videoPath, {
      exerciseId,
      pollIntervalMs: pollSeconds * 1000,
      onUploadProgress: (p) => progress.upload(p),
      onSubmitted: (s) => progress.submitted(s.job_id, s.status),
      onJobUpdate: (j) => progress.job(j),
    });
  } finally {
    progress.done();
  }
  if (values.json) printJson(io, job);
  else io.out.write(jobText(job));
  if (reportFile) await report(client, io, job, exerciseId, videoPath, reportFile);
  return jobExit(io, job);
}

async function jobs(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'list') {
    const { values } = parse(rest, { status: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } }, []);
    if (values.help) return help(io);
    const statuses = ['queued', 'processing', 'completed', 'failed', 'cancelled'] as const;
    const status = values.status as (typeof statuses)[number] | undefined;
    if (status !== undefined && !statuses.includes(status)) throw new UsageError(`--status must be one of ${statuses.join(', ')}`);
    if (values.limit !== undefined && !/^0*([1-9]\d{0,2}|1000)$/.test(String(values.limit))) throw new UsageError(`--limit must be a whole number from 1 to 1000, got "${String(values.limit)}"`);
    const client = clientFrom(values, io.env);
    const page = await client.listJobs({ query: { status, limit: values.limit as string | undefined, cursor: values.cursor as string | undefined } });
    if (values.json) printJson(io, page);
    else io.out.write(jobsText(page.jobs) + (page.next_cursor ? `more: --cursor ${page.next_cursor}\n` : ''));
    return 0;
  }
  if (sub === 'show') {
    const { values, positionals } = parse(rest, { report: { type: 'string' }, video: { type: 'string' }, exercise: { type: 'string', short: 'e' } }, ['JOB_ID']);
    if (values.help) return help(io);
    // SPEC's job body does not name its exercise or video: a report of an existing job needs both.
    const reportArgs = [values.report, values.video, values.exercise].filter((v) => v !== undefined).length;
    if (reportArgs !== 0 && reportArgs !== 3) throw new UsageError('--report needs --video VIDEO and --exercise ID (the job body names neither)');
    const videoPath = typeof values.video === 'string' ? await existingFile(values.video, 'video file') : undefined;
    const reportFile = typeof values.report === 'string' ? await writableTarget(values.report) : undefined;
    const client = clientFrom(values, io.env);
    const job = await client.getJob({ job_id: positionals[0]! });
    if (values.json) printJson(io, job);
    else io.out.write(jobText(job));
    if (reportFile && videoPath) await report(client, io, job, values.exercise as string, videoPath, reportFile);
    return job.status === 'completed' || job.status === 'queued' || job.status === 'processing' ? 0 : jobExit(io, job);
  }
  // `jobs --help` as admin's `jobs --help` (issue rx: it was "unknown jobs command", exit 2).
  if (sub === '--help' || sub === '-h') return help(io);
  throw new UsageError(sub ? `unknown jobs command "${sub}" (list, show)` : 'missing jobs command (list, show)');
}

async function simple<T>(argv: string[], io: Io, run: (c: RepCoachClient) => Promise<T>, text: (v: T) => string): Promise<number> {
  const { values } = parse(argv, {}, []);
  if (values.help) return help(io);
  const body = await run(clientFrom(values, io.env));
  if (values.json) printJson(io, body);
  else io.out.write(text(body));
  return 0;
}

export async function main(argv: string[], io: Io = { out: process.stdout, err: process.stderr, env: process.env }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'analyze':
        return await analyze(rest, io);
      case 'exercises':
        return await simple(rest, io, (c) => c.listExercises(), (b) => exercisesText(b.exercises));
      case 'identity':
        return await simple(rest, io, (c) => c.getIdentity(), identityText);
      case 'jobs':
        return await jobs(rest, io);
      case '--help':
      case '-h':
      case 'help':
        io.out.write(HELP);
        return 0;
      case undefined:
        io.err.write(HELP);
        return 2;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err.write(`error: ${err.message}\n\n${HELP}`);
      return 2;
    }
    if (err instanceof RepCoachError) {
      io.err.write(errorLine(err));
      return err.code === 'unknown_exercise' ? 2 : 1;
    }
    io.err.write(`error: ${(err as Error).stack ?? err}\n`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
