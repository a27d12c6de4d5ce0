// Baseline for bench:api: a bare fastify + better-sqlite3 server doing one point read per request,
// with none of the service's auth, schemas or hooks.
import Fastify from 'fastify';
import Database from 'better-sqlite3';

const [dbPath, port] = process.argv.slice(2);
const db = new Database(dbPath!, { readonly: true });
const byId = db.prepare<[string], { job_id: string; status: string }>('SELECT job_id, status FROM jobs WHERE job_id = ?');
const app = Fastify();
app.get<{ Params: { id: string } }>('/jobs/:id', async (req, reply) => {
  const row = byId.get(req.params.id);
  if (!row) return reply.code(404).send({ error: 'not found' });
  return row;
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write('ready\n');
