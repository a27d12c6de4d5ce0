// Loads the TypeScript sources with Node's own type stripping instead of tsx, for engine processes
// (runner/engine-host.ts forks them with `--import` of this file). Each engine paid tsx's loader at
// start: 0.3-0.6 s of CPU inside the 20 s in which a freshly started service must end its first
// jobs (issue 22). Node strips types itself (unflagged since 23.6 for erasable syntax: no enums,
// namespaces or parameter properties in the files an engine loads); two things tsx did remain:
// - imports name the compiled file (`./x.js`, as NodeNext wants), so a relative `.js` import from
//   a `.ts` file that does not exist as `.js` resolves to the `.ts` beside it;
// - stripping is cached on disk with V8's code cache (Node's compile cache: NODE_COMPILE_CACHE, or
//   the system's temp directory), so only the first engine on a machine strips and compiles.
// engine-host.ts uses it only on a Node that strips types and has registerHooks (22.18+, 24), tsx
// otherwise.
import { enableCompileCache, registerHooks } from 'node:module';

enableCompileCache();

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
