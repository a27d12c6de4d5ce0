// The OpenAPI document exactly as GET /openapi.json serves it, built without a listening server:
// the client's generated types and the lint test read it from here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { openService } from '../service.js';
import { buildApp } from './app.js';

export async function openapiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-openapi-'));
  const svc = await openService(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const app = await buildApp(svc);
    // The document served over HTTP is JSON: round-trip it so undefined members vanish as they do there.
    const doc = JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
    await app.close();
    return doc;
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
