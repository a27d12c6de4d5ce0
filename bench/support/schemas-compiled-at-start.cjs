// `node --require` this for bench:start's baseline: the API as it started before issue 22s, with
// every route schema compiled at start. It hides the generated code (src/http/compiled/schemas.cjs)
// behind an empty module, so src/http/precompiled-schemas.ts falls back to fastify's own compilers
// for every route, which is what fastify did by itself before.
const Module = require('node:module');
const path = require.resolve('../../src/http/compiled/schemas.cjs');
const empty = new Module(path);
empty.filename = path;
empty.loaded = true;
empty.exports = {};
require.cache[path] = empty;
