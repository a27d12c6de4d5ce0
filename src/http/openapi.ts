// The OpenAPI document exactly as GET /openapi.json serves it, built without a listening server:
// the client's generated types and the lint test read it from here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../config.js';
import { openService } from '../service.js';
import { buildApp, type AppOptions } from './app.js';

/** Builds the app over a service on a scratch DATA_DIR, hands it to `use`, then closes and removes both. */
export async function withScratchApp<T>(opts: AppOptions, use: (app: FastifyInstance) => T | Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-openapi-'));
  const svc = await openService(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const app = await buildApp(svc, opts);
    try {
      return await use(app);
    } finally {
      await app.close();
    }
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function openapiDocument(): Promise<Record<string, unknown>> {
  // The document served over HTTP is JSON: round-trip it so undefined members vanish as they do there.
  return withScratchApp({}, (app) => JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>);
}
