// How the service's processes load its TypeScript sources: `node --import ./src/runtime/ts-loader.mjs
// ENTRY.ts` (`npm start`, `npm run worker`, each engine process (runner/engine-host.ts), and the
// operator's and partner's tools: `npm run admin`, `analyze` and `cli`, which the client package's
// sources reach through its `source` export condition).
//
// With Node's own type stripping (Node 22.18+, 24) instead of tsx. tsx's loader, and under `npm start`
// its CLI's extra process and esbuild's service, cost a fresh service ~1.5 s of CPU before it
// answered and each engine process 0.3-0.6 s more, inside the 20 s in which it must end its first
// jobs (issue 22). Node takes erasable syntax only (no enums, namespaces or parameter properties:
// test/runtime/ts-loader.unit.test.ts checks every file under src/). Two things tsx did remain:
// - imports name the compiled file (`./x.js`, as NodeNext wants): a relative `.js` import from a
//   `.ts` file resolves to the `.ts` beside it;
// - the stripped and compiled code is cached on disk (Node's compile cache: NODE_COMPILE_CACHE, or
//   the system's temp directory), so a process started again does not strip and compile again.
// On an older Node (22.14-22.17) it registers tsx instead, as the scripts did before.
import * as nodeModule from 'node:module';

const { enableCompileCache, registerHooks } = nodeModule;

if (process.features.typescript && typeof registerHooks === 'function') {
  enableCompileCache?.();
  registerHooks({
    resolve(specifier, context, next) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js') || !context.parentURL?.endsWith('.ts')) return next(specifier, context);
      try {
        return next(`${specifier.slice(0, -3)}.ts`, context);
      } catch (e) {
        // a real `.js` file of ours (none today), or nothing at all: let Node say which
        if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
        return next(specifier, context);
      }
    },
  });
} else {
  const { register } = await import('tsx/esm/api');
  register();
}
