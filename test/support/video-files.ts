// Videos made at test time, written to a temporary directory that goes when the test file ends.
import { test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeDir } from './remove-dir.js';

/** A fresh directory (removed after the file's tests) and a writer of numbered .mp4 files in it. */
export function videoFiles(prefix: string): { dir: string; file: (bytes: Buffer) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  test.after(() => removeDir(dir));
  let n = 0;
  return {
    dir,
    file(bytes) {
      const p = join(dir, `v${n++}.mp4`);
      writeFileSync(p, bytes);
      return p;
    },
  };
}
