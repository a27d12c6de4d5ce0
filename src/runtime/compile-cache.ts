// Writes what runtime/ts-loader.mjs stripped and compiled so far to Node's compile cache now, for
// the next process started on this machine. Node writes it at exit otherwise: an engine process is
// usually killed, and a service may run for weeks. Called once a process has loaded its modules.
// (flushCompileCache is newer than the project's @types/node; absent, as under tsx, nothing to write.)
import * as nodeModule from 'node:module';

export function flushCompileCache(): void {
  (nodeModule as { flushCompileCache?: () => void }).flushCompileCache?.();
}
