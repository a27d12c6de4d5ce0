// The held answers of completed jobs (src/http/completed-bodies.ts): the owner's body, the other
// keys' refusal, and a bounded size with the oldest dropped first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completedBodies } from '../../src/http/completed-bodies.js';

test('a held body is the owner\'s only; another key learns only that it is not theirs', () => {
  const held = completedBodies();
  held.set('job-1', 'key-a', '{"job_id":"job-1"}');
  assert.equal(held.get('job-1', 'key-a'), '{"job_id":"job-1"}');
  assert.equal(held.get('job-1', 'key-b'), 'other-key');
  assert.equal(held.get('job-2', 'key-a'), undefined);
});

test('past the byte budget the oldest bodies go first; one larger than the budget is not held', () => {
  const held = completedBodies(10);
  held.set('a', 'k', '1234');
  held.set('b', 'k', '5678');
  held.set('c', 'k', '90ab');
  assert.equal(held.get('a', 'k'), undefined);
  assert.equal(held.get('b', 'k'), '5678');
  assert.equal(held.get('c', 'k'), '90ab');
  held.set('big', 'k', '12345678901');
  assert.equal(held.get('big', 'k'), undefined);
  assert.equal(held.get('c', 'k'), '90ab');
});
