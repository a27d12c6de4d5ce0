// Expires spots whose window closed unclaimed (SpotExpired, for the audit trail) and deletes their
// bytes, so unclaimed uploads do not pile up in storage; the same timer runs the video retention
// sweep (retention.ts).
import { decideUpload } from '../commands/uploads.js';
import { overdueSpots } from '../projections/uploads.js';
import type { Service } from '../service.js';
import { purgeOnce } from './retention.js';
import { reconcileVault } from '../secrets/reconcile.js';

export async function sweepOnce(svc: Service, batch = 200): Promise<number> {
  const now = svc.clock();
  let swept = 0;
  for (const row of overdueSpots(svc.readDb(), now, batch)) {
    await svc.ledger.handle(row.key_id, (s) => decideUpload({ type: 'ExpireSpot', handle: row.handle, now: now.toISOString() }, s));
    await svc.storage.discard(row.handle);
    swept++;
  }
  return swept;
}

export function startSweeper(svc: Service, intervalMs: number, log: { error(o: object, m: string): void }) {
  const timer = setInterval(() => {
    sweepOnce(svc).catch((err) => log.error({ err: String(err) }, 'sweep failed'));
    purgeOnce(svc).catch((err) => log.error({ err: String(err) }, 'video retention sweep failed'));
    try {
      reconcileVault(svc);
    } catch (err) {
      log.error({ err: String(err) }, 'secrets vault sweep failed');
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
