// Streams the video to the signed upload URL with a Content-Length (S3 and the storage host both
// want one) and reports progress as the bytes leave. The URL is a bearer credential: it never
// carries the API key and is never put into an error message.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { extname } from 'node:path';
import { Readable } from 'node:stream';
import { errorFromResponse, NETWORK_ERROR, RepCoachError } from './errors.js';

/** A local file path, the bytes, or a Blob (e.g. a File). */
export type VideoSource = string | Uint8Array | Blob;

export interface UploadProgress {
  /** Bytes sent so far. */
  loaded: number;
  total: number;
}

export interface UploadOptions {
  contentType?: string;
  onProgress?: (p: UploadProgress) => void;
  signal?: AbortSignal;
}

const TYPES: Record<string, string> = { '.mp4': 'video/mp4', '.m4v': 'video/mp4', '.mov': 'video/quicktime', '.webm': 'video/webm', '.mkv': 'video/x-matroska', '.avi': 'video/x-msvideo' };

export function contentTypeOf(video: VideoSource): string {
  if (typeof video === 'string') return TYPES[extname(video).toLowerCase()] ?? 'application/octet-stream';
  if (video instanceof Blob && video.type) return video.type;
  return 'application/octet-stream';
}

async function open(video: VideoSource): Promise<{ size: number; stream: () => Readable }> {
  if (typeof video === 'string') {
    const { size } = await stat(video);
    return { size, stream: () => createReadStream(video, { highWaterMark: 256 * 1024 }) };
  }
  if (video instanceof Uint8Array) {
    const chunk = 256 * 1024;
    return {
      size: video.byteLength,
      stream: () => Readable.from((function* () {
        for (let i = 0; i < video.byteLength; i += chunk) yield video.subarray(i, i + chunk);
      })()),
    };
  }
  return { size: video.size, stream: () => Readable.fromWeb(video.stream() as import('node:stream/web').ReadableStream) };
}

const redact = (url: URL) => `${url.origin}${url.pathname}`;

/** PUTs the video once; throws RepCoachError on any answer but 2xx or on a dropped connection. */
export async function putVideo(uploadUrl: string, video: VideoSource, opts: UploadOptions = {}): Promise<void> {
  const url = new URL(uploadUrl);
  const { size, stream } = await open(video);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  opts.signal?.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const req = request(url, {
      method: 'PUT',
      headers: { 'content-type': opts.contentType ?? contentTypeOf(video), 'content-length': String(size) },
      signal: opts.signal,
    });
    let source: Readable | undefined;
    const fail = (cause: Error) => {
      source?.destroy();
      if (opts.signal?.aborted) return reject(opts.signal.reason);
      reject(new RepCoachError({ code: NETWORK_ERROR, message: `upload to ${redact(url)} failed: ${cause.message}`, status: 0, retryable: true, cause }));
    };
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', fail);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return resolve();
        const headers = { get: (n: string) => { const v = res.headers[n.toLowerCase()]; return Array.isArray(v) ? (v[0] ?? null) : (v ?? null); } };
        reject(errorFromResponse(status, headers, Buffer.concat(chunks).toString('utf8')));
      });
    });
    let loaded = 0;
    opts.onProgress?.({ loaded, total: size });
    source = stream();
    source.on('error', (e) => {
      req.destroy(e);
      reject(e);
    });
    source.on('data', (chunk: Buffer | Uint8Array) => {
      loaded += chunk.byteLength;
      // Progress counts bytes handed to the socket; backpressure keeps it close to what was sent.
      if (!req.write(chunk)) {
        source.pause();
        req.once('drain', () => source.resume());
      }
      opts.onProgress?.({ loaded, total: size });
    });
    source.on('end', () => req.end());
  });
}
