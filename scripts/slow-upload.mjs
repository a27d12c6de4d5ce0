// A slow partner's upload against a running `npm start`: mints a spot, then streams the PUT for
// SECONDS (default 380, longer than Node's old 300 s request timeout), a 256 KiB chunk every 2 s,
// and prints the PUT's answer and the spot's state.
//   node scripts/slow-upload.mjs API_KEY [SECONDS]    (BASE_URL defaults to http://127.0.0.1:8080)
import { request } from 'node:http';

const [key, secondsArg = '380'] = process.argv.slice(2);
if (!key) {
  process.stderr.write('usage: node scripts/slow-upload.mjs API_KEY [SECONDS]\n');
  process.exit(2);
}
const base = process.env.BASE_URL ?? 'http://127.0.0.1:8080';
const everyMs = 2000;
const size = 256 * 1024;
const chunks = Math.max(1, Math.round((Number(secondsArg) * 1000) / everyMs));
const auth = { authorization: `Bearer ${key}` };
const spot = await (await fetch(`${base}/v1/uploads`, { method: 'POST', headers: auth })).json();
if (!spot.upload_url) throw new Error(`mint failed: ${JSON.stringify(spot)}`);
const started = Date.now();
const put = await new Promise((resolve, reject) => {
  const req = request(spot.upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4', 'content-length': String(chunks * size) } }, (res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => resolve({ status: res.statusCode, body }));
  });
  req.on('error', reject);
  let sent = 0;
  const next = () => {
    req.write(Buffer.alloc(size, sent % 251));
    if (++sent === chunks) return void req.end();
    setTimeout(next, everyMs);
  };
  next();
});
const state = await (await fetch(`${base}/v1/uploads/${spot.handle}`, { headers: auth })).json();
console.log(JSON.stringify({ seconds: (Date.now() - started) / 1000, bytes: chunks * size, put, spot: state }));
