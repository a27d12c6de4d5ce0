// scratch: prefill on one server, then restart with --cpu-prof and time submissions (CPU of the server).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin } from './test/support/processes.js';
import { startService, stop } from './bench/support/service.js';
import { prefill, drive } from './bench/support/submit-only.js';
import { cpuMsOf } from './bench/support/cpu.js';

const dir = mkdtempSync(join(tmpdir(), 'rc-prof-'));
const env = { DATA_DIR: dir, SPOTS_PER_WINDOW: '1000000', UNCLAIMED_BYTES_CAP: '1000000000000', WORKER_CONCURRENCY: '0' };
const keys = Number(process.argv[2] ?? 1);
const n = Number(process.argv[3] ?? 300);
const conns = Number(process.argv[4] ?? 8);
const prof = process.argv[5];
const auths = Array.from({ length: keys }, () => `Bearer ${admin(env, 'keys', 'create', '--partner-name', 'B').json().api_key}`);
let svc = await startService(env);
const spots = await prefill(svc.base, auths, n);
await stop(svc.child);
svc = await startService(env, prof ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${prof}` } : {});
const c0 = cpuMsOf(svc.child.pid!)!;
const r = await drive(`${svc.base}/v1/jobs`, conns, spots);
const c1 = cpuMsOf(svc.child.pid!)!;
console.log(JSON.stringify({ ...r, cpuMsPerJob: (c1 - c0) / n }));
await stop(svc.child);
