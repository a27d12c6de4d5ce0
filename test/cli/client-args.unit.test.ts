// The partner CLI's arguments (issue rw): a negative number given to an option is that option's
// value, judged by the option's own check (parseArgs called it "ambiguous"); an option given twice
// is refused (parseArgs kept the last). All before any request is made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/client.js';
import { memoryStream } from './run.js';

async function run(...argv: string[]) {
  const out = memoryStream();
  const err = memoryStream();
  // No server listens on port 9: a request would fail as network_error (exit 1), not exit 2.
  const code = await main(argv, { out: out.stream, err: err.stream, env: { REP_COACH_API_URL: 'http://127.0.0.1:9', REP_COACH_API_KEY: 'rk_x' } });
  return { code, out: out.text(), err: err.text() };
}

test('a negative number after an option is its value, refused by that option\'s own check', async () => {
  const cases: [string[], string][] = [
    [['analyze', 'package.json', '--exercise', 'squat', '--poll-interval', '-1'], '--poll-interval must be a positive number of seconds, got "-1"'],
    [['analyze', 'package.json', '--exercise', 'squat', '--poll-interval', '-0.5'], '--poll-interval must be a positive number of seconds, got "-0.5"'],
    [['analyze', 'package.json', '--exercise', 'squat', '--poll-interval=-1'], '--poll-interval must be a positive number of seconds, got "-1"'],
    [['jobs', 'list', '--limit', '-5'], '--limit must be a whole number from 1 to 1000, got "-5"'],
  ];
  for (const [argv, message] of cases) {
    const res = await run(...argv);
    assert.equal(res.code, 2, argv.join(' '));
    assert.ok(res.err.startsWith(`error: ${message}\n\nusage:`), `${argv.join(' ')}: ${res.err.split('\n')[0]}`);
    assert.doesNotMatch(res.err, /ambiguous/);
    assert.equal(res.out, '');
  }
});

test('an option given twice is refused, not read as its last value', async () => {
  for (const [argv, name] of [[['jobs', 'list', '--limit', '2', '--limit', '3'], '--limit'], [['analyze', 'package.json', '-e', 'squat', '--exercise', 'lunge'], '--exercise'], [['identity', '--key', 'a', '--key', 'b'], '--key']] as const) {
    const res = await run(...argv);
    assert.equal(res.code, 2, argv.join(' '));
    assert.ok(res.err.startsWith(`error: ${name} is given more than once\n`), res.err.split('\n')[0]);
  }
});
