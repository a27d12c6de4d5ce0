// Keeps the vault to what the ledger still needs (run by the sweeper): the data keys of removed
// endpoints (a crash between the removal and its crypto-shredding), of secrets whose rotation
// overlap is over, and of seals that never made it into the ledger (a crash between sealing and
// appending) are destroyed. A key is only judged once it is an hour old, so a seal whose append is
// still in flight on another process is never taken for an orphan.
import type { Service } from '../service.js';

const GRACE_MS = 3600 * 1000;

export function reconcileVault(svc: Service): number {
  const now = svc.clock().getTime();
  const needed = new Set<string>();
  const rows = svc.readDb()
    .prepare<[], { secret_key_id: string; previous_key_id: string | null; previous_valid_until: string | null; removed_at: string | null }>(
      'SELECT secret_key_id, previous_key_id, previous_valid_until, removed_at FROM webhook_endpoints WHERE removed_at IS NULL',
    )
    .all();
  for (const r of rows) {
    needed.add(r.secret_key_id);
    if (r.previous_key_id && r.previous_valid_until && Date.parse(r.previous_valid_until) > now) needed.add(r.previous_key_id);
  }
  let destroyed = 0;
  for (const { keyId, createdAt } of svc.vault.keys()) {
    if (needed.has(keyId) || !keyId.startsWith('wk_')) continue;
    // An expired previous secret goes at once; anything else unreferenced after the grace period.
    const expiredPrevious = rows.some((r) => r.previous_key_id === keyId);
    if (!expiredPrevious && now - Date.parse(createdAt) < GRACE_MS) continue;
    if (svc.vault.destroy(keyId)) destroyed++;
  }
  return destroyed;
}
