// The engine's side of the decoder's stdout (child.mjs `stream` and `serve`): a description line,
// then each frame as a record behind its 4-byte big-endian length, and a record of length 0 at the
// end of the video. The end of a video is a record, not the end of the pipe, so one decoder
// process can serve video after video; one reader lives as long as the process and keeps the bytes
// it read past a boundary for what comes next.
import type { Readable } from 'node:stream';

/** Longest description line accepted. */
const MAX_LINE = 65_536;

export interface DecoderOutput {
  /** The next line (a video's description), or undefined if the pipe ended or it is too long. */
  line(): Promise<string | undefined>;
  /**
   * The bytes of the current video's frames, in pipe-sized chunks (no copies, no frame
   * boundaries: the caller knows a frame's size), up to the video's end record. `ended` says
   * whether that record came: false when the pipe ended first (the process stopped mid-video).
   */
  frames(): AsyncGenerator<Buffer>;
  readonly ended: boolean;
}

export function decoderOutput(stdout: Readable): DecoderOutput {
  const source = (stdout as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let pending: Buffer = Buffer.alloc(0);
  let ended = false;
  /** More bytes from the pipe after `pending`; false at its end. */
  const more = async (): Promise<boolean> => {
    const next = await source.next();
    if (next.done) return false;
    pending = pending.length ? Buffer.concat([pending, next.value]) : next.value;
    return true;
  };
  return {
    get ended() {
      return ended;
    },
    async line() {
      for (;;) {
        const nl = pending.indexOf(10);
        if (nl >= 0) {
          const line = pending.subarray(0, nl).toString('utf8');
          pending = pending.subarray(nl + 1);
          return line;
        }
        if (pending.length > MAX_LINE || !(await more())) return undefined;
      }
    },
    async *frames() {
      ended = false;
      for (;;) {
        while (pending.length < 4) if (!(await more())) return;
        let left = pending.readUInt32BE(0);
        pending = pending.subarray(4);
        if (left === 0) {
          ended = true;
          return;
        }
        while (left > 0) {
          if (!pending.length && !(await more())) return;
          const n = Math.min(left, pending.length);
          const part = pending.subarray(0, n);
          pending = pending.subarray(n);
          left -= n;
          yield part;
        }
      }
    },
  };
}
