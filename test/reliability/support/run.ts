// `npm run test:reliability`: runs every test/reliability file with the long budgets and ends with
// one summary line summed from the files' reports. Exit status is the test run's.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dir = join(root, 'test', 'reliability');
const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort().map((f) => relative(root, join(dir, f)));
if (files.length === 0) {
  console.error('no reliability test files found');
  process.exit(1);
}
const countsDir = mkdtempSync(join(tmpdir(), 'rc-reliability-'));
const tapFile = join(countsDir, 'report.tap');
const started = Date.now();
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tapFile}`, ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, RELIABILITY: process.env.RELIABILITY ?? 'long', RELIABILITY_COUNTS_DIR: countsDir } },
);
const code: number = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));

const sum = { sequences: 0, steps: 0, kills: 0, badInputs: 0, lost: 0, violations: 0 };
for (const f of readdirSync(countsDir).filter((f) => f.endsWith('.json'))) {
  const counts = JSON.parse(readFileSync(join(countsDir, f), 'utf8')) as Partial<typeof sum>;
  for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += counts[k] ?? 0;
}
// A failing test is a violated rule whether or not it got to report its own count.
let failed = 0;
try {
  failed = Number(/^# fail (\d+)$/m.exec(readFileSync(tapFile, 'utf8'))?.[1] ?? 0);
} catch {
  failed = code === 0 ? 0 : 1;
}
const violations = Math.max(sum.violations, failed);
rmSync(countsDir, { recursive: true, force: true });
const seconds = Math.round((Date.now() - started) / 1000);
console.log(
  `sequences ${sum.sequences}, steps ${sum.steps}, kills ${sum.kills}, bad inputs ${sum.badInputs}, lost ${sum.lost}, violations ${violations} (${files.length} files, ${seconds}s)`,
);
process.exit(code !== 0 ? code : violations > 0 ? 1 : 0);
