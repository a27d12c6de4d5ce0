// The engine's side of the decoder's stdout (child.mjs `stream` and `serve`): a description line,
// then each frame as a record behind its 4-byte big-endian length, and a record of length 0 at the
// end of the video. The end of a video is a record, not the end of the output, so one decoder
// process can serve video after video; one reader lives as long as the process.
//
// The decoder's stdout is one end of a Unix socket pair made here (decoderChannel), not a pipe
// made by child_process: a pipe's reader gets every read in a fresh 64 KB Buffer, ~30 MB of
// garbage per 2 s clip at 960x540, which kept the engine's collector busy (2-3 full collections a
// clip). This end is read with Node's `onread` option instead: each read lands where this file
// says, a frame's bytes straight into the caller's frame buffer, a record's length into 4 bytes of
// its own, and only a description line (or, rarely, the first read after a pause) into a small
// buffer of its own. Nothing is allocated per read.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { stageParent } from './sandbox.js';

/** Longest description line accepted. */
const MAX_LINE = 65_536;

export interface DecoderOutput {
  /** The next line (a video's description), or undefined if the output ended or it is too long. */
  line(): Promise<string | undefined>;
  /**
   * Reads the current video's next frame record into `into`, whose length must be the record's.
   * True once filled; false at the video's end record (then `ended` is true) or when the output
   * ended or broke first (the process stopped mid-video, or a record of another size came). Calls
   * queue: a second buffer handed over while the first fills gets the frame after it.
   */
  frame(into: Uint8Array): Promise<boolean>;
  /** Whether the current video's end record came. */
  readonly ended: boolean;
}

/** The two ends: `stdout` for the decoder process (spawn's stdio[1]; close it here once spawned), `output` to read. */
export interface DecoderChannel {
  stdout: Socket;
  output: DecoderOutput;
}

interface Request { into: Uint8Array; filled: number; done(ok: boolean): void }

/** The reader: where each read goes (`target`), what it was (`onRead`). */
function frameReader() {
  let socket: Socket | undefined;
  // Bytes read into `scratch` and not yet taken: scratch[start, end).
  const scratch = Buffer.alloc(MAX_LINE);
  let start = 0;
  let end = 0;
  const head = Buffer.alloc(4);
  let headGot = 0;
  /** 'line' before a video's description; 'records' after it, until its end record. */
  let mode: 'line' | 'records' = 'line';
  /** Bytes of the current record not yet read; -1 while its length is being read. */
  let left = -1;
  const requests: Request[] = [];
  let lineWaiter: ((line: string | undefined) => void) | undefined;
  let ended = false;
  let closed = false;
  /** Reading stopped (onRead said so) until a line or a frame is asked for. */
  let paused = false;
  /** The view handed out for the next read (what `onRead` is told it filled). */
  let given: Uint8Array = scratch;

  const fail = () => {
    closed = true;
    for (const r of requests.splice(0)) r.done(false);
    lineWaiter?.(undefined);
    lineWaiter = undefined;
    socket?.destroy();
  };

  /** A record's length is complete: start its payload, or end the video. */
  const recordLength = (n: number) => {
    headGot = 0;
    if (n === 0) {
      ended = true;
      mode = 'line';
      left = -1;
      for (const r of requests.splice(0)) r.done(false);
      return;
    }
    left = n;
  };

  /** Bytes the current request has taken: complete it when full. */
  const took = (r: Request, n: number) => {
    r.filled += n;
    left -= n;
    if (r.filled === r.into.length) {
      requests.shift();
      left = -1;
      r.done(true);
    }
  };

  /** Takes what it can from the scratch bytes (a line, a length, a frame's first bytes). */
  const advance = () => {
    while (!closed) {
      if (mode === 'line') {
        if (!lineWaiter) return;
        const nl = scratch.subarray(start, end).indexOf(10);
        if (nl < 0) {
          if (end - start >= MAX_LINE) fail();
          return;
        }
        const line = scratch.toString('utf8', start, start + nl);
        start += nl + 1;
        mode = 'records';
        ended = false;
        const w = lineWaiter;
        lineWaiter = undefined;
        w(line);
        continue;
      }
      if (start === end) return;
      if (left < 0) {
        const n = Math.min(4 - headGot, end - start);
        scratch.copy(head, headGot, start, start + n);
        start += n;
        headGot += n;
        if (headGot === 4) recordLength(head.readUInt32BE(0));
        continue;
      }
      const r = requests[0];
      if (!r) return;
      if (r.into.length !== left + r.filled) return fail();
      const n = Math.min(left, end - start);
      r.into.set(scratch.subarray(start, start + n), r.filled);
      start += n;
      took(r, n);
    }
  };

  /** Whether bytes are wanted now (else reading pauses until a line or a frame is asked for). */
  const wanted = () => !closed && (mode === 'line' ? lineWaiter !== undefined : requests.length > 0);

  /** Where the next read goes. A frame's bytes go straight to its buffer; when no buffer waits, to scratch. */
  const target = (): Uint8Array => {
    if (start === end) start = end = 0;
    if (mode === 'records' && start === end) {
      if (left < 0) return (given = head.subarray(headGot));
      const r = requests[0];
      if (r && r.into.length === left + r.filled) return (given = r.into.subarray(r.filled));
    }
    if (start > 0) {
      scratch.copy(scratch, 0, start, end);
      end -= start;
      start = 0;
    }
    // Full of a line too long: advance() has failed the reader; the read goes nowhere useful.
    return (given = scratch.subarray(end === scratch.length ? 0 : end));
  };

  /** `n` bytes were read into `buf` (the last target). False pauses reading. */
  const onRead = (n: number, buf: Uint8Array): boolean => {
    if (buf !== given || closed) return false;
    if (buf.buffer === scratch.buffer) end += n;
    else if (buf.buffer === head.buffer) {
      headGot += n;
      if (headGot === 4) recordLength(head.readUInt32BE(0));
    } else took(requests[0]!, n);
    advance();
    paused = !wanted();
    return !paused;
  };

  const more = () => {
    if (closed || !paused) return;
    paused = false;
    socket?.resume();
  };

  const output: DecoderOutput = {
    get ended() {
      return ended;
    },
    line() {
      if (closed || lineWaiter) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        lineWaiter = resolve;
        advance();
        more();
      });
    },
    frame(into) {
      if (closed || mode === 'line') return Promise.resolve(false);
      return new Promise((resolve) => {
        requests.push({ into, filled: 0, done: resolve });
        advance();
        more();
      });
    },
  };

  const attach = (s: Socket) => {
    socket = s;
    s.on('end', fail);
    s.on('close', fail);
    s.on('error', fail);
  };
  return { target, onRead, output, attach };
}

/**
 * A connected pair of Unix stream sockets (what child_process makes for a pipe, too), through a
 * listening socket in a private directory that is removed once they are connected. The directory
 * is made where the decoders' stages are (sandbox.ts), so that an engine process killed meanwhile
 * leaves nothing behind: the engine host removes that directory when the process ends.
 */
export async function decoderChannel(): Promise<DecoderChannel> {
  const dir = mkdtempSync(join(stageParent(), 'rc-frames-'));
  const server = createServer({ pauseOnConnect: true });
  try {
    const path = join(dir, 's');
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, resolve);
    });
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const reader = frameReader();
    const socket = connect({ path, onread: { buffer: reader.target, callback: reader.onRead } });
    reader.attach(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return { stdout: await accepted, output: reader.output };
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
