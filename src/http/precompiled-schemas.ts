// The routes' request validators and response serializers, compiled once by `npm run build:schemas`
// (scripts/schema-codegen.ts) into src/http/compiled/schemas.cjs, instead of at every start.
//
// Why: compiling them (Ajv for the validators; fast-json-stringify, which builds an Ajv of its own
// for every response schema, for the serializers) was ~0.5-1 s of the API's CPU before it answered,
// inside the 20 s in which a freshly started `npm start` must end its first jobs (issue 22). The
// generated code is what those compilers produce in their standalone modes, so it behaves the same.
//
// Each compiled function is found by what it was compiled from: its kind and a hash of its schema
// and of the compiler's options. A schema changed without running the build step therefore never
// meets stale code: it is compiled here as before (and test/http/precompiled-schemas.unit.test.ts
// fails until the file is regenerated).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** A compiler factory as fastify calls it (its own types tell validators and serializers apart; this does not need to). */
type Factory = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => unknown;
export type SchemaKind = 'validator' | 'serializer';
/** What fastify hands a compiler for one route part (validators) or one status (serializers). */
export interface RouteSchema {
  schema: unknown;
  method: string;
  url: string;
  httpPart?: string;
  httpStatus?: string;
}

const require = createRequire(import.meta.url);
export const compiledPath = fileURLToPath(new URL('./compiled/schemas.cjs', import.meta.url));

/**
 * What a compiler factory was given besides the schemas (shared schemas, options), as text: taken
 * when the factory is made, as the standalone compilers add their own options to the object later.
 */
export const compilerState = (externalSchemas: unknown, options: unknown): string => JSON.stringify([externalSchemas, options ?? null]);

/** The key a compiled function is stored under: the same schema with the same options compiles to the same code. */
export function schemaKey(kind: SchemaKind, schema: unknown, state: string): string {
  const hash = createHash('sha256').update(JSON.stringify(schema)).update('\n').update(state).digest('hex').slice(0, 20);
  return `${kind} ${hash}`;
}

/** The generated module: key -> a function returning the compiled validator or serializer. */
type Compiled = Record<string, () => (...args: never[]) => unknown>;
let compiled: Compiled | undefined;
const load = (): Compiled => (compiled ??= require(compiledPath) as Compiled);

/** Route schemas that had no compiled code and were compiled at start instead (a stale generated file). */
export const compiledAtStart: string[] = [];

/**
 * fastify's compilersFactory: the generated code where it has the schema, otherwise fastify's
 * own compilers (loaded only then), exactly as fastify would have used them.
 */
export function precompiledCompilers(): CompilersFactory {
  const factory = (kind: SchemaKind, fastifysOwn: string): Factory => (externalSchemas, options) => {
    const state = compilerState(externalSchemas, options);
    let fallback: ReturnType<Factory> | undefined;
    return (route) => {
      const found = load()[schemaKey(kind, route.schema, state)];
      if (found) return found();
      compiledAtStart.push(`${kind} ${route.method} ${route.url} ${route.httpPart ?? route.httpStatus}`);
      fallback ??= (require(fastifysOwn) as () => Factory)()(externalSchemas, options);
      return fallback(route);
    };
  };
  return {
    buildValidator: factory('validator', '@fastify/ajv-compiler'),
    buildSerializer: factory('serializer', '@fastify/fast-json-stringify-compiler'),
  } as CompilersFactory;
}
