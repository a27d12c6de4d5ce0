// Baseline for bench:api: a bare fastify + better-sqlite3 server over a copy of the service's
// read-model tables. It does the same data work as the service for each request (the same point
// reads, the same response bodies) and none of the rest: no schemas, hooks, logging, metrics,
// error envelopes or request ids.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import Database from 'better-sqlite3';

const [dbPath, port] = process.argv.slice(2);
const db = new Database(dbPath!, { readonly: true });
const keyByHash = db.prepare<[string], { key_id: string; partner_id: string; partner_name: string; status: string; limit_n: number | null; used: number; held: number }>(
  'SELECT * FROM keys WHERE key_hash = ?',
);
const jobById = db.prepare<[string], { job_id: string; key_id: string; status: string; result: string | null }>('SELECT * FROM jobs WHERE job_id = ?');
const keyOf = (auth: string | undefined) => keyByHash.get(createHash('sha256').update((auth ?? '').slice(7)).digest('hex'));

const app = Fastify();
app.get('/v1/identity', async (req, reply) => {
  const key = keyOf(req.headers.authorization);
  if (!key) return reply.code(401).send({ error: 'unauthorized' });
  const limit = key.limit_n;
  return { partner_id: key.partner_id, partner_name: key.partner_name, status: key.status, usage: { limit, used: key.used, remaining: limit === null ? null : Math.max(0, limit - key.used - key.held) } };
});
app.get<{ Params: { id: string } }>('/v1/jobs/:id', async (req, reply) => {
  const key = keyOf(req.headers.authorization);
  if (!key) return reply.code(401).send({ error: 'unauthorized' });
  const row = jobById.get(req.params.id);
  if (!row || row.key_id !== key.key_id) return reply.code(404).send({ error: 'not found' });
  if (row.status === 'completed') return { job_id: row.job_id, status: row.status, result: JSON.parse(row.result!) };
  return { job_id: row.job_id, status: row.status };
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write('ready\n');
