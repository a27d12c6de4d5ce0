// Helpers of the projection tests: a comparable dump of every read-model table, and a history made
// through the real API and runner.
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { VideoProcessingError, type AnalysisEngine } from '../../src/analysis/engine.js';
import type { Harness } from '../support/harness.js';
import { sampleResult, until } from '../support/engines.js';

/** Every row of every table, by primary key, columns by name (so column order does not matter). */
export function dump(db: Database.Database): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
  for (const { name } of tables) {
    const pk = db.prepare<[], { name: string; pk: number }>(`SELECT name, pk FROM pragma_table_info('${name}')`).all().filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name).join(', ');
    out[name] = db.prepare(`SELECT * FROM ${name} ORDER BY ${pk}`).all().map((row) => Object.fromEntries(Object.entries(row as object).sort()));
  }
  return out;
}

/** squat completes, bicep-curl fails as undecodable. */
export const scriptedEngine = (): AnalysisEngine => ({
  version: 'test-scripted/1',
  async analyze({ exerciseId }) {
    if (exerciseId === 'bicep-curl') throw new VideoProcessingError('not a video');
    return sampleResult;
  },
});

/** Two keys with completed, failed and cancelled jobs, a spare spot, a suspended key and a limit change. */
export async function makeHistory(h: Harness) {
  const keys = [await h.createKey({ limit: 5, partnerName: 'North' }), await h.createKey({ partnerName: 'South' })];
  const jobIds: string[] = [];
  for (const { apiKey } of keys) {
    for (const exercise of ['squat', 'bicep-curl', 'squat']) {
      const res = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: exercise } });
      assert.equal(res.status, 201, res.text);
      jobIds.push(res.body.job_id);
    }
    await h.upload(apiKey);
  }
  for (const [i, jobId] of jobIds.entries()) {
    const apiKey = keys[Math.floor(i / 3)]!.apiKey;
    await until(async () => {
      const s = (await h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey })).body.status;
      return ['completed', 'failed', 'cancelled'].includes(s) ? s : undefined;
    });
  }
  const now = h.svc.clock().toISOString();
  await h.svc.ledger.handle(keys[0]!.keyId, () => [{ type: 'LimitSet', data: { keyId: keys[0]!.keyId, limit: 9, at: now } }]);
  await h.svc.ledger.handle(keys[1]!.keyId, () => [{ type: 'KeySuspended', data: { keyId: keys[1]!.keyId, at: now } }]);
  return { keys, jobIds };
}
