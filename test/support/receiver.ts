// A partner's webhook receiver on loopback, verifying every request with the `standardwebhooks`
// package (what a partner would use). `answer(n)` picks the status of the n-th request (1-based).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed payload when the signature verified, else the verification error's message. */
  verified: { ok: true; payload: any } | { ok: false; error: string };
  status: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The secret from POST /v1/webhook-endpoints; requests are verified with it. */
  secret?: string;
  /** Resolves once `n` requests have been answered with a 2xx. */
  delivered(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(t: TestContext | undefined, answer: (n: number) => number | 'hang' = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received,
    async delivered(n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ok = received.filter((r) => r.status >= 200 && r.status < 300);
        if (ok.length >= n) return ok;
        if (Date.now() > deadline) throw new Error(`receiver: ${ok.length} of ${n} deliveries after ${timeoutMs} ms (${received.length} requests)`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let verified: Received['verified'];
      try {
        verified = { ok: true, payload: new Webhook(receiver.secret ?? '').verify(body, req.headers as Record<string, string>) };
      } catch (err) {
        verified = { ok: false, error: (err as Error).message };
      }
      const decided = answer(received.length + 1);
      const status = decided === 'hang' ? 0 : verified.ok ? decided : 400;
      received.push({ headers: req.headers, body, verified, status });
      if (decided === 'hang') return void hanging.add(res);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/rep-coach`;
  t?.after(() => receiver.close());
  return receiver;
}
