// What `cli analyze` shows while it works, on stderr (stdout carries only the table or the JSON):
// on a terminal, a redrawn upload bar and then an elapsed-time line ticking every second; in a
// pipe or a log, plain lines (upload every 25%, each job status change, a heartbeat per minute).
import type { Job, UploadProgress } from '@rep-coach/client';

type Out = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

const mb = (n: number) => (n / 1048576).toFixed(1);
const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

export function analyzeProgress(err: Out, now: () => number = Date.now) {
  const tty = err.isTTY === true;
  const started = now();
  let lastDraw = 0;
  let lastStep = -1;
  let onLine = false;
  let jobId = '';
  let status = '';
  let submittedAt = 0;
  let ticker: NodeJS.Timeout | undefined;
  let lastBeat = 0;

  const draw = (text: string) => {
    err.write(`\r${text}\x1b[K`);
    onLine = true;
  };
  const endLine = () => {
    if (onLine) err.write('\n');
    onLine = false;
  };
  const elapsedLine = () => `Job ${jobId}: ${status}  elapsed ${clock(now() - submittedAt)}`;

  return {
    upload(p: UploadProgress) {
      const pct = p.total > 0 ? Math.floor((p.loaded / p.total) * 100) : 100;
      if (tty) {
        const t = now();
        if (t - lastDraw < 80 && p.loaded < p.total) return;
        lastDraw = t;
        const width = Math.max(10, Math.min(40, (err.columns ?? 80) - 48));
        const filled = Math.round((pct / 100) * width);
        const rate = p.loaded / Math.max(0.001, (t - started) / 1000);
        draw(`Uploading [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(pct).padStart(3)}%  ${mb(p.loaded)}/${mb(p.total)} MB  ${mb(rate)} MB/s`);
      } else {
        const step = Math.floor(pct / 25);
        if (step === lastStep) return;
        lastStep = step;
        err.write(`upload: ${pct}% (${mb(p.loaded)} of ${mb(p.total)} MB)\n`);
      }
    },
    submitted(id: string, initial: string) {
      endLine();
      jobId = id;
      status = initial;
      submittedAt = now();
      lastBeat = submittedAt;
      if (tty) {
        draw(elapsedLine());
        ticker = setInterval(() => draw(elapsedLine()), 1000);
        ticker.unref();
      } else {
        err.write(`job ${id}: ${initial}\n`);
      }
    },
    job(job: Job) {
      const changed = job.status !== status;
      status = job.status;
      if (tty) return draw(elapsedLine());
      const t = now();
      if (changed || t - lastBeat >= 60_000) {
        lastBeat = t;
        err.write(`job ${job.job_id}: ${job.status} (elapsed ${Math.round((t - submittedAt) / 1000)} s)\n`);
      }
    },
    done() {
      if (ticker) clearInterval(ticker);
      if (tty && jobId) draw(elapsedLine());
      endLine();
    },
  };
}
