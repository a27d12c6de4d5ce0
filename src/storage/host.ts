// The storage host of the disk driver: a second listener that accepts PUTs to signed URLs and
// nothing else. It never logs the URL (the query string is a bearer credential).
//
// An upload is bounded by progress, never by its total duration (a long video over a phone's
// uplink takes many minutes): Node's 300 s requestTimeout is off, and a PUT with no bytes arriving
// for UPLOAD_IDLE_TIMEOUT_SECONDS is cut with 408. The URL's expiry is checked when the PUT starts;
// one that started in time runs to its end, and its bytes are kept only if the spot still accepts
// them then (README "Uploads that take long").
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
  /** No bytes for this long cuts a PUT (and closes an idle connection). Default 60 s. */
  idleTimeoutMs?: number;
  /** The request's headers must arrive within this. Default 10 s. */
  headersTimeoutMs?: number;
}

/** Ends the upload when its client stops sending: the socket saw no bytes for the idle timeout. */
class UploadIdle extends Error {}
/** On every answer, like the API's. */
const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };

function reply(res: ServerResponse, status: number, code?: string, message?: string, headers: Record<string, string> = {}) {
  const body = code ? JSON.stringify({ error: { code, message } }) : '';
  res.writeHead(status, {
    ...SECURITY_HEADERS,
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
  const idleMs = deps.idleTimeoutMs ?? 60_000;

  /** Streams the body to a temp file; `land` then moves it to the spot, or it is dropped. */
  async function receive(req: IncomingMessage, res: ServerResponse, handle: string, land: () => Promise<boolean>): Promise<number | undefined> {
    const { layout } = deps;
    const tmp = join(layout.tmp, `put-${randomBytes(8).toString('hex')}`);
    // The socket's inactivity timer (server.timeout) fires on the request while its body is read:
    // say why if the client still listens, then end the upload (the pipeline fails, the temp goes).
    const onIdle = () => {
      const cut = () => req.destroy(new UploadIdle('no bytes arrived for the idle timeout'));
      if (res.headersSent) return cut();
      reply(res, 408, 'upload_idle_timeout', `No bytes arrived for ${Math.round(idleMs / 1000)} s; the upload was cut and nothing was stored. PUT the whole file again.`, { connection: 'close' });
      res.once('finish', cut);
    };
    req.on('timeout', onIdle);
    try {
      const out = createWriteStream(tmp, { flags: 'wx', mode: 0o600 });
      await pipeline(req, out);
      req.off('timeout', onIdle);
      await fsyncPath(tmp);
      const size = out.bytesWritten;
      if (!(await land())) {
        await rm(tmp, { force: true });
        return undefined;
      }
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
    // SPEC: the signed URL authorizes its own write and the Authorization header must not be sent.
    // S3 refuses such a PUT (400, "only one auth mechanism allowed") before it checks the signature;
    // so does this host, so a partner that sends one fails here as it would against the bucket,
    // not only in production. Nothing is read or stored and the spot stays as it was.
    // The refusal closes the connection: the body it does not read may be gigabytes.
    if (req.headers.authorization !== undefined) {
      return reply(res, 400, 'authorization_not_allowed', 'The upload URL authorizes its own write: send the PUT without an Authorization header (object storage refuses it too). Nothing was stored.', { connection: 'close' });
    }
    // A PUT without Content-Length (Transfer-Encoding: chunked, a streamed body) is taken: SPEC asks
    // only for the raw bytes, and refusing it would break a partner's working upload on the default
    // wiring. S3 refuses one (411 MissingContentLength); the README says so.
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
    let stillOpen = true;
    const size = await receive(req, res, handle, async () => (stillOpen = await deps.acceptsUpload(handle))).catch((err) => {
      if (err instanceof UploadIdle || res.headersSent) return null; // answered (408) or the client is gone
      throw err;
    });
    if (size === null) return;
    if (size === undefined || !stillOpen) {
      const expired = expires * 1000 <= deps.clock().getTime();
      return expired
        ? reply(res, 410, 'upload_spot_expired', 'The upload finished after the upload URL expired; nothing was stored. Mint a new spot and upload again.')
        : reply(res, 403, 'upload_closed', 'This upload spot no longer accepts uploads.');
    }
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
  // Bounded by progress, not duration: no total request timeout; a socket (an upload's body
  // included) that moves no byte for idleMs is cut; headers must arrive within headersTimeoutMs.
  server.requestTimeout = 0;
  server.headersTimeout = deps.headersTimeoutMs ?? 10_000;
  server.setTimeout(idleMs);
  // Requests refused before they reach onRequest get the envelope too.
  server.on('clientError', answerClientError);
  answerOutsideRoutes(server);
  return server;
}
