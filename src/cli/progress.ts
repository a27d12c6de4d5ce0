// Rebuild progress: a redrawn bar on a terminal, plain lines (at most one per second) otherwise,
// so a log file or CI output stays readable.
import type { Progress } from '../projections/replay.js';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function eta(p: Progress, rate: number): string {
  if (rate <= 0) return '?';
  const s = Math.max(0, Math.round((p.total - p.done) / rate));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export function progressReporter(err: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }, label: string) {
  let lastLine = 0;
  let drewBar = false;
  return {
    update(p: Progress) {
      const now = Date.now();
      const rate = p.elapsedMs > 0 ? (p.done * 1000) / p.elapsedMs : 0;
      const pct = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
      const stats = `${fmt(p.done)}/${fmt(p.total)} events  ${fmt(rate)} events/s  ETA ${eta(p, rate)}`;
      if (err.isTTY) {
        if (now - lastLine < 100 && p.done < p.total) return;
        const width = Math.max(10, Math.min(40, (err.columns ?? 80) - stats.length - label.length - 12));
        const filled = Math.round(pct * width);
        err.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(pct * 100)).padStart(3)}%  ${stats}\x1b[K`);
        drewBar = true;
      } else {
        if (now - lastLine < 1000) return;
        err.write(`${label}: ${Math.floor(pct * 100)}% ${stats}\n`);
      }
      lastLine = now;
    },
    done() {
      if (drewBar) err.write('\n');
    },
  };
}
