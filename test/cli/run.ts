// Runs the real admin CLI as a child process, asynchronously, so a server in the test process keeps
// answering while the command runs (spawnSync would freeze it).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../support/processes.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runAdmin(dataDir: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'src/cli/admin.ts'), ...args],
      { cwd: repoRoot, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** An in-memory stdout/stderr for calling main() in-process. */
export function memoryStream() {
  let text = '';
  return {
    stream: { write: (s: string) => ((text += s), true), once: () => undefined, isTTY: false } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}
