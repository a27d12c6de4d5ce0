// `npm run -s cli -- ...` as a partner runs it, against the real server process on loopback with
// the real engine on real clips; the --report page opened in headless Chromium.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@rep-coach/client';
import type { Browser, Page } from 'playwright-core';
import { writeReport } from '../../src/report/index.js';
import type { AnalysisResult } from '../../src/analysis/result.js';
import { haveChromium, launchChromium, NO_CHROMIUM } from '../support/browser.js';
import { admin, haveVideos, NO_VIDEOS, repoRoot, startServer, videosDir, type ServerProcess } from '../support/processes.js';

const CLIP_JSON = join(videosDir, 'pushup_side_homegym.mp4');
const CLIP_REPORT = join(videosDir, 'kbtrainer_pushup_diagonal.mp4');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(env: Record<string, string | undefined>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '-s', 'cli', '--', ...args], { cwd: repoRoot, env: { ...process.env, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

async function withServer(t: TestContext) {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-cli-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const server: ServerProcess = await startServer(env);
  t.after(async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const key = admin(env, 'keys', 'create', '--partner-name', 'CLI Partner').json() as { api_key: string };
  const cliEnv = { REP_COACH_API_URL: server.base, REP_COACH_API_KEY: key.api_key };
  const raw = async (path: string) => {
    const res = await fetch(server.base + path, { headers: { authorization: `Bearer ${key.api_key}` } });
    return { status: res.status, text: await res.text() };
  };
  return { server, apiKey: key.api_key, cliEnv, raw, tmp: dataDir };
}

test('cli: bad arguments exit 2 with the usage; refusals exit 1 with the code; exercises, identity, jobs list without a video', async (t) => {
  const { cliEnv, server, apiKey } = await withServer(t);
  const usage = /usage: npm run -s cli --/;
  for (const args of [[], ['analyze'], ['analyze', 'missing.mp4', '--exercise', 'push-up'], ['jobs'], ['frobnicate'], ['jobs', 'list', '--status', 'weird'], ['analyze', join(repoRoot, 'package.json'), '--exercise', 'push-up', '--poll-interval', '0']]) {
    const r = await cli(cliEnv, ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, usage);
  }
  const noKey = await cli({ REP_COACH_API_URL: server.base, REP_COACH_API_KEY: '' }, 'identity');
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /no API key/);
  // A wrong exercise is a bad argument, found from the live catalog before anything is uploaded.
  const wrong = await cli(cliEnv, 'analyze', join(repoRoot, 'package.json'), '--exercise', 'handstand');
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /unknown exercise "handstand"; known: .*push-up/);
  // In the server's words: the code, status and message POST /v1/jobs would answer (issue rx).
  const served = await fetch(`${server.base}/v1/jobs`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: 'h', exercise_id: 'handstand' }) });
  const envelope = (await served.json()) as { error: { code: string; message: string } };
  assert.ok(wrong.stderr.startsWith(`error: ${envelope.error.code} (HTTP ${served.status}): ${envelope.error.message}\n`), wrong.stderr);

  const badKey = await cli({ ...cliEnv, REP_COACH_API_KEY: 'wrong' }, 'identity');
  assert.equal(badKey.code, 1);
  assert.match(badKey.stderr, /authentication_error \(HTTP 401\)/);
  const missing = await cli(cliEnv, 'jobs', 'show', '00000000-0000-4000-8000-000000000000');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /job_not_found \(HTTP 404\).*request id/);

  const ex = await cli(cliEnv, 'exercises');
  assert.equal(ex.code, 0);
  assert.match(ex.stdout, /^Exercise id\s+Name\s+Description$/m);
  assert.match(ex.stdout, /^push-up\s+Push-up/m);
  const exJson = await cli(cliEnv, 'exercises', '--json');
  assert.deepEqual(JSON.parse(exJson.stdout), await createClient({ baseUrl: server.base, apiKey }).listExercises());
  const me = await cli({}, 'identity', '--api', server.base, '--key', apiKey);
  assert.equal(me.code, 0);
  assert.match(me.stdout, /Partner: CLI Partner/);
  assert.match(me.stdout, /Usage: 0 used, limit uncapped/);
  const jobs = await cli(cliEnv, 'jobs', 'list');
  assert.deepEqual([jobs.code, jobs.stdout], [0, 'No jobs.\n']);
});

test('cli analyze --json prints the job exactly as GET /v1/jobs/{job_id} returns it; plain progress lines when not on a terminal', { skip: haveVideos ? false : NO_VIDEOS, timeout: 600_000 }, async (t) => {
  const { cliEnv, raw } = await withServer(t);
  const r = await cli(cliEnv, 'analyze', CLIP_JSON, '--exercise', 'push-up', '--json', '--poll-interval', '0.5');
  assert.equal(r.code, 0, r.stderr);
  const job = JSON.parse(r.stdout) as { job_id: string; status: string };
  assert.equal(job.status, 'completed');
  const served = await raw(`/v1/jobs/${job.job_id}`);
  assert.equal(r.stdout.trim(), served.text, 'byte for byte what the API serves');
  assert.match(r.stderr, /^upload: 100% \(0\.5 of 0\.5 MB\)$/m);
  assert.match(r.stderr, new RegExp(`^job ${job.job_id}: completed \\(elapsed \\d+ s\\)$`, 'm'));
  assert.doesNotMatch(r.stderr, /\r|\x1b\[/, 'no terminal control codes in a pipe');

  const shown = await cli(cliEnv, 'jobs', 'show', job.job_id, '--json');
  assert.equal(shown.stdout.trim(), served.text);
  const listed = await cli(cliEnv, 'jobs', 'list', '--json');
  assert.deepEqual(JSON.parse(listed.stdout), { jobs: [{ job_id: job.job_id, status: 'completed' }] });
});

async function openReport(t: TestContext, browser: Browser, file: string, shot: string) {
  const page: Page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  t.after(() => page.close());
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  await page.screenshot({ path: shot, fullPage: true });
  const images = await page.$$eval('img.evidence-img', (imgs) => (imgs as HTMLImageElement[]).map((i) => ({ loaded: i.complete && i.naturalWidth > 0, inCard: !!i.closest('article.attempt') })));
  return {
    errors,
    offline: requests.every((u) => u.startsWith('file:') || u.startsWith('data:')),
    cards: await page.locator('article.attempt').count(),
    images,
    skeletons: await page.locator('article.attempt .frame svg.skeleton line').count(),
    figuresWithSkeleton: await page.locator('article.attempt figure.evidence:has(svg.skeleton)').count(),
    chart: await page.locator('svg.chart path.signal').count(),
    fitsPhone: await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1),
  };
}

test('cli analyze prints one table row per attempt and --report writes a self-contained page: one card per attempt, every evidence frame loaded with its skeleton, no console error (headless Chromium)', { skip: !haveVideos ? NO_VIDEOS : !haveChromium ? NO_CHROMIUM : false, timeout: 600_000 }, async (t) => {
  const { server, apiKey, raw, tmp } = await withServer(t);
  const file = join(tmp, 'report.html');
  // --api and --key instead of the environment.
  const r = await cli({ REP_COACH_API_URL: undefined, REP_COACH_API_KEY: undefined }, 'analyze', CLIP_REPORT, '--exercise', 'push-up', '--api', server.base, '--key', apiKey, '--report', file, '--poll-interval', '0.5');
  assert.equal(r.code, 0, r.stderr);
  const jobId = /^Job (\S+): completed/m.exec(r.stdout)?.[1];
  assert.ok(jobId, r.stdout);
  const job = JSON.parse((await raw(`/v1/jobs/${jobId}`)).text) as { result: AnalysisResult };
  const reps = job.result.repetitions;
  assert.match(r.stdout, /^Attempt\s+Time \(s\)\s+Valid\s+Score\s+Issues$/m);
  const rows = [...r.stdout.matchAll(/^\s*(\d+)\s+(\d+\.\d)-(\d+\.\d)\s+(yes|no)\s+(\d+)\s+(.+)$/gm)];
  assert.deepEqual(
    rows.map((m) => [Number(m[1]), m[2], m[3], m[4], Number(m[5])]),
    reps.map((rep) => [rep.attempt_number, (rep.start_time_ms / 1000).toFixed(1), (rep.end_time_ms / 1000).toFixed(1), rep.is_valid_rep ? 'yes' : 'no', Math.round(rep.quality_score)]),
  );
  for (const [i, rep] of reps.entries()) {
    if (rep.issues.length === 0) assert.equal(rows[i]![6], '-');
    else assert.ok(rows[i]![6]!.startsWith(rep.issues[0]!.name));
  }
  assert.ok(statSync(file).size > 0);
  assert.match(r.stderr, /^report: .*report\.html/m);

  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await openReport(t, browser, file, join(tmp, 'report.png'));
  assert.deepEqual(page.errors, []);
  assert.ok(page.offline, 'the page fetches nothing');
  assert.equal(page.cards, reps.length);
  const issues = reps.flatMap((rep) => rep.issues);
  assert.equal(page.images.length, issues.length);
  assert.ok(page.images.every((i) => i.loaded && i.inCard), JSON.stringify(page.images));
  assert.equal(page.figuresWithSkeleton, issues.length, 'a skeleton over every evidence frame');
  assert.ok(page.chart >= 1, 'the signal chart is drawn');
  assert.ok(page.fitsPhone, 'no sideways scrolling on a phone-sized screen');
  assert.ok(statSync(join(tmp, 'report.png')).size > 10_000, 'a screenshot was taken');

  // A report of an existing job: jobs show with the video and the exercise.
  const again = join(tmp, 'again.html');
  const shown = await cli({ REP_COACH_API_URL: server.base, REP_COACH_API_KEY: apiKey }, 'jobs', 'show', jobId, '--report', again, '--video', CLIP_REPORT, '--exercise', 'push-up');
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(readFileSync(again, 'utf8').match(/<article class="card attempt"/g)?.length, reps.length);

  // The same job with an issue placed in every attempt (whatever the engine found), so every card
  // must show a loaded frame with the skeleton; and without a pose track, frames without skeletons.
  const client = createClient({ baseUrl: server.base, apiKey });
  const pose = await client.getJobPose({ job_id: jobId });
  const withIssues: AnalysisResult = {
    ...job.result,
    repetitions: reps.map((rep) => ({
      ...rep,
      issues: [...rep.issues, { category: 'posture', name: 'Test issue', description: 'Placed by the test.', correction: 'None.', severity: 'minor', impact_on_score: -5, evidence_timestamp_ms: Math.round((rep.start_time_ms + rep.end_time_ms) / 2) }],
    })),
  };
  const total = withIssues.repetitions.flatMap((rep) => rep.issues).length;
  for (const [name, trackOrNot] of [['with-pose', pose], ['no-pose', { unavailable: 'not_found: this server has no pose tracks' }]] as const) {
    const out = join(tmp, `${name}.html`);
    await writeReport({ jobId, result: withIssues, exercise: { exercise_id: 'push-up', name: 'Push-up' }, videoPath: CLIP_REPORT, pose: trackOrNot, outFile: out });
    const p = await openReport(t, browser, out, join(tmp, `${name}.png`));
    assert.deepEqual(p.errors, []);
    assert.equal(p.cards, reps.length);
    assert.equal(p.images.length, total);
    assert.ok(p.images.every((i) => i.loaded), `${name}: every evidence image loaded`);
    if (name === 'with-pose') {
      assert.equal(p.figuresWithSkeleton, total);
      assert.ok(p.skeletons >= total * 4, 'bones drawn');
    } else {
      assert.equal(p.figuresWithSkeleton, 0);
      assert.equal(p.chart, 0);
      assert.match(readFileSync(out, 'utf8'), /No pose track/);
    }
  }
});
