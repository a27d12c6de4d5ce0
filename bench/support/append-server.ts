// The HTTP side of bench:api's submit-only baseline: bare fastify answering POST /v1/jobs with one
// raw append per request (SpotClaimed + JobQueued and their hash rows, one transaction, the
// service's tables and pragmas: raw-appends.ts), no auth, schemas, command handling, storage or
// projection; and /v1/echo, the same answer with nothing written: driven by the same load client
// at the same connections as the service, it shows how fast the client itself can go.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { batchWriter } from '../../src/events/store/sqlite-batch.js';
import { CHAIN_DDL } from '../../src/events/store/sqlite-chain.js';
import { EVENTS_DDL, openSqlite } from '../../src/events/store/sqlite.js';
import { canonicalJson } from '../../src/events/chain.js';

const [file, port] = process.argv.slice(2);
const db = openSqlite(file!, 60_000);
db.exec(EVENTS_DDL + CHAIN_DDL);
db.exec('INSERT OR REPLACE INTO chain_state (id, sealed) VALUES (1, 1)');
const write = batchWriter(db);
const heads = new Map<string, number>();

const app = Fastify();
app.post<{ Body: { upload_handle: string; exercise_id: string } }>('/v1/jobs', async (req, reply) => {
  const { upload_handle: handle, exercise_id: exerciseId } = req.body;
  const stream = `ledger-${req.headers.authorization ?? ''}`;
  const jobId = randomUUID();
  const at = new Date().toISOString();
  const events = [
    { type: 'SpotClaimed', data: canonicalJson({ at, exerciseId, handle, jobId, size: 1024 }) },
    { type: 'JobQueued', data: canonicalJson({ at, exerciseId, handle, jobId }) },
  ];
  const [r] = write([{ stream, expected: heads.get(stream) ?? -1, events }], at);
  if (!r || 'conflict' in r) return reply.code(409).send({ error: 'conflict' });
  heads.set(stream, r.nextRevision);
  return reply.code(201).send({ job_id: jobId, status: 'queued' });
});
// The load client's ceiling: the same request answered at once, nothing written.
app.post('/v1/echo', async (_req, reply) => reply.code(201).send({ job_id: randomUUID(), status: 'queued' }));
app.get('/livez', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(port) });
