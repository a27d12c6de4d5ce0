// The storage host of the disk driver: a second listener that accepts PUTs to signed URLs and
// nothing else. It never logs the URL (the query string is a bearer credential).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { answerClientError, answerOutsideRoutes } from '../http/errors.js';
import type { DiskLayout } from './disk.js';
import { verify } from './signing.js';

export interface StorageHostDeps {
  layout: DiskLayout;
  clock: () => Date;
  /** True while the spot may still receive bytes (minted or uploaded, not claimed, not expired). */
  acceptsUpload(handle: string): Promise<boolean>;
  /** Records the landed bytes in the ledger (SpotUploaded). */
  uploaded(handle: string, size: number): Promise<void>;
  log: { error(obj: object, msg: string): void };
}

function reply(res: ServerResponse, status: number, code?: string, message?: string, headers: Record<string, string> = {}) {
  const body = code ? JSON.stringify({ error: { code, message } }) : '';
  res.writeHead(status, {
    ...headers,
    'content-length': Buffer.byteLength(body),
    ...(code ? { 'content-type': 'application/json; charset=utf-8' } : {}),
  });
  res.end(body);
}

async function fsyncPath(path: string) {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export function createStorageHost(deps: StorageHostDeps): Server {
  async function receive(req: IncomingMessage, handle: string): Promise<number> {
    const { layout } = deps;
    const tmp = join(layout.tmp, `put-${randomBytes(8).toString('hex')}`);
    try {
      const out = createWriteStream(tmp, { flags: 'wx' });
      await pipeline(req, out);
      await fsyncPath(tmp);
      const size = out.bytesWritten;
      // Rename replaces the directory entry only: a job's hard link keeps the old inode intact.
      await rename(tmp, join(layout.live, handle));
      await fsyncPath(layout.live);
      return size;
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://storage.invalid');
    } catch {
      return reply(res, 404, 'not_found', 'No such object.'); // not even a URL: a client error, not ours
    }
    const match = /^\/uploads\/([A-Za-z0-9_-]{1,64})$/.exec(url.pathname);
    if (!match) return reply(res, 404, 'not_found', 'No such object.');
    if (req.method !== 'PUT') return reply(res, 405, 'method_not_allowed', 'Only PUT is allowed on an upload URL.', { allow: 'PUT' });
    const handle = match[1]!;
    const expires = Number(url.searchParams.get('expires') ?? NaN);
    const signature = url.searchParams.get('signature') ?? '';
    if (!Number.isSafeInteger(expires) || !verify(deps.layout.secret, handle, expires, signature)) {
      return reply(res, 403, 'signature_invalid', 'The upload URL signature is not valid.');
    }
    if (expires * 1000 <= deps.clock().getTime()) return reply(res, 403, 'url_expired', 'The upload URL has expired.');
    if (!(await deps.acceptsUpload(handle))) {
      return reply(res, 403, 'upload_closed', 'This upload spot no longer accepts uploads.');
    }
    const size = await receive(req, handle);
    await deps.uploaded(handle, size);
    reply(res, 200);
  }

  const server = createServer({ requireHostHeader: false }, (req, res) => {
    onRequest(req, res).catch((err: Error) => {
      deps.log.error({ err: { message: err.message, code: (err as NodeJS.ErrnoException).code } }, 'storage host request failed');
      if (!res.headersSent) reply(res, 500, 'storage_error', 'The upload could not be stored.');
      else res.destroy();
    });
  });
  // Requests refused before they reach onRequest get the envelope too.
  server.on('clientError', answerClientError);
  answerOutsideRoutes(server);
  return server;
}
