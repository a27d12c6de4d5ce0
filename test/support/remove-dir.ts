// Removing a test's temporary directory, in a cleanup that never throws.
//
// node:test runs a test's `after` hooks in the order they were registered and skips the rest once
// one throws. A removal that threw (ENOTEMPTY while a server it had started was still writing)
// once left that server running after its test, so the file never exited and CI hung until its
// 90-minute limit. Retried, and at worst a warning: a leftover temporary directory costs nothing.
import { rmSync } from 'node:fs';

export function removeDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch (e) {
    console.warn(`could not remove ${dir}: ${(e as Error).message}`);
  }
}
