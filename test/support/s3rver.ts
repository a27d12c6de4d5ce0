// An S3-compatible server for tests: @20minutes/s3rver on 127.0.0.1 (random port, temp dir), which
// checks SigV4 signatures the way S3 does. Its one account is S3RVER / S3RVER.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
// @ts-expect-error: the package ships no type declarations
import S3rver from '@20minutes/s3rver';

export interface FakeS3 {
  endpoint: string;
  bucket: string;
  /** The env knobs that point the service at it. */
  env: Record<string, string>;
}

export async function startS3rver(t: Pick<TestContext, 'after'>, bucket = 'videos'): Promise<FakeS3> {
  const directory = mkdtempSync(join(tmpdir(), 'rc-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as AddressInfo;
  // s3rver keeps objects as files under one directory per key prefix, and its deleteObject removes
  // a prefix's directory once it is empty. A PUT into that prefix between its mkdir and its write
  // then fails with 500 InternalError (ENOENT): seen in CI when one submission's spot was deleted
  // while another partner's upload was arriving. S3 has no directories, so the race is the stand-in's
  // alone; a file s3rver does not list as an object keeps each prefix's directory in place.
  for (const prefix of ['uploads', 'frozen', 'poses']) {
    mkdirSync(join(directory, bucket, prefix), { recursive: true });
    writeFileSync(join(directory, bucket, prefix, '.keep-directory'), '');
  }
  t.after(async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_DRIVER: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_FORCE_PATH_STYLE: 'true',
    },
  };
}
