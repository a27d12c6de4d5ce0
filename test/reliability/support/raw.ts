// Raw HTTP/1.1 over node:net, for requests fetch refuses to send (bad methods, NUL bytes, bare CRs,
// oversized or duplicated headers, lying framing). Reads until the server closes or a full
// response has arrived; a silent server is reported as a hang after `timeoutMs`.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type RawOutcome = { kind: 'response'; response: RawResponse } | { kind: 'closed' } | { kind: 'hang' };

function parse(buf: Buffer): { response: RawResponse; complete: boolean } | undefined {
  // Interim answers (100 Continue) come before the real one.
  while (/^HTTP\/1\.[01] 1\d\d /.test(buf.subarray(0, 16).toString('latin1')) && buf.indexOf('\r\n\r\n') >= 0) buf = buf.subarray(buf.indexOf('\r\n\r\n') + 4);
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let rest = buf.subarray(end + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const nl = rest.indexOf('\r\n');
      if (nl < 0) return { response: { status, headers, body: Buffer.concat(parts).toString('utf8') }, complete: false };
      const size = parseInt(rest.subarray(0, nl).toString('latin1'), 16);
      if (size === 0) return { response: { status, headers, body: Buffer.concat(parts).toString('utf8') }, complete: true };
      parts.push(rest.subarray(nl + 2, nl + 2 + size));
      rest = rest.subarray(nl + 2 + size + 2);
    }
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const complete = length !== undefined && rest.length >= length;
  return { response: { status, headers, body: rest.subarray(0, length).toString('utf8') }, complete };
}

export function rawRequest(port: number, data: Buffer | string, timeoutMs = 5000): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    let done = false;
    const finish = (outcome?: RawOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parse(Buffer.concat(chunks));
      resolve(outcome ?? (parsed ? { kind: 'response', response: parsed.response } : { kind: 'closed' }));
    };
    const timer = setTimeout(() => {
      const parsed = parse(Buffer.concat(chunks));
      finish(parsed ? { kind: 'response', response: parsed.response } : { kind: 'hang' });
    }, timeoutMs);
    socket.on('data', (d) => {
      chunks.push(d);
      // HEAD and 1xx/204/304 answers carry no body: the headers are the whole answer.
      const parsed = parse(Buffer.concat(chunks));
      if (parsed?.complete || (parsed && /^HEAD /.test(String(data).slice(0, 5)))) finish();
    });
    socket.on('error', () => finish());
    socket.on('close', () => finish());
    socket.write(data);
  });
}
