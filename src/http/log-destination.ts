// Where `npm start`'s log lines go: stdout, asynchronously, in chunks.
//
// Why gathered here and not by sonic-boom's own minLength (issue 22): sonic-boom (pino.destination)
// measures the UTF-8 length of the whole string it is gathering on every line it is given, and
// converts each chunk to bytes twice, so with minLength a line cost more the longer the pending
// chunk was: a few percent of a request's CPU. Here a line is pushed to an array; the chunk is
// joined once and handed over in one write when it reaches `bytes` (UTF-16 units, close enough for a
// threshold) or every `ms`, so under load one write carries a few dozen request lines and a line is
// never more than about `ms` late. sonic-boom still does the writing (partial writes, EAGAIN on a
// non-blocking pipe), synchronously, as pino.destination does by default: one write(2) a chunk, a few
// dozen lines, every `ms` at most. Not asynchronously: sonic-boom 4's flushSync writes what it holds
// but not a chunk whose asynchronous write is still in flight, so at exit the last chunk could be
// lost, and a line written after it could land before it (log-destination.unit's flushSync test
// caught the first on Node 22: the file still empty after flushSync returned).
import pino from 'pino';

export interface LogDestination {
  write(line: string): void;
  /** Everything gathered, written before this returns (at exit). */
  flushSync(): void;
}

/** `fd`: 1 for stdout. */
export function logInChunks(fd: number, opts: { bytes: number; ms: number }): LogDestination {
  const out = pino.destination({ dest: fd, sync: true });
  let pending: string[] = [];
  let size = 0;
  const hand = () => {
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    size = 0;
    out.write(chunk);
  };
  setInterval(hand, opts.ms).unref();
  return {
    write(line) {
      pending.push(line);
      size += line.length;
      if (size >= opts.bytes) hand();
    },
    flushSync() {
      hand();
      out.flushSync();
    },
  };
}
