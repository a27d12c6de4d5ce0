// request.log is made lazily (src/http/request-log.ts): what it writes must be byte for byte what
// fastify's pino child would have written, whatever is logged through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { lazyRequestLogger } from '../../src/http/request-log.js';

function logger(level: string) {
  const lines: string[] = [];
  const log = pino(
    {
      level,
      timestamp: () => ',"time":1',
      serializers: { req: (req) => ({ id: req.id, path: String(req.url).split('?')[0] }), res: (res) => ({ statusCode: res.statusCode }) },
    },
    { write: (line: string) => void lines.push(line) },
  );
  return { log, lines };
}

// Made once: both sides log the same stack.
const boom = new Error('boom');
const thrown = new Error('thrown');

type Script = (l: pino.BaseLogger & { child(b: object): pino.BaseLogger }) => void;
const scripts: Record<string, Script> = {
  'the request line': (l) => l.info({ req: { id: 'r1', url: '/v1/jobs/x?a=b' }, res: { statusCode: 200 }, responseTime: 1.25 }, 'request completed'),
  'fields with an error': (l) => l.error({ err: boom, responseTime: 3 }, 'request errored'),
  'a message alone': (l) => l.warn('plain %s', 'text'),
  'an Error first': (l) => l.error(thrown),
  'a level that is off': (l) => l.debug({ req: { id: 'r1', url: '/' } }, 'incoming request'),
  'a child of it': (l) => l.child({ part: 'x' }).info({ n: 1 }, 'from a child'),
  'fields then a message': (l) => {
    l.info({ a: 1 }, 'one');
    l.info('two');
    l.info({ b: '"quoted"\n' }, 'three');
  },
  'a level set on it': (l) => {
    l.level = 'debug';
    l.debug({ c: 1 }, 'now on');
  },
};

for (const [name, script] of Object.entries(scripts)) {
  test(`request.log writes what a pino child writes: ${name}`, () => {
    for (const level of ['info', 'warn']) {
      const eager = logger(level);
      const lazy = logger(level);
      script(eager.log.child({ reqId: 'req-1' }) as never);
      script(lazyRequestLogger(lazy.log, { reqId: 'req-1' }, {}) as never);
      assert.deepEqual(lazy.lines, eager.lines, `at level ${level}`);
    }
  });
}

test('request.log makes no child for a line of fields, nor for a level that is off', () => {
  const { log, lines } = logger('info');
  let children = 0;
  const child = log.child.bind(log);
  log.child = ((...args: Parameters<typeof child>) => (children++, child(...args))) as typeof log.child;
  const l = lazyRequestLogger(log, { reqId: 'req-2' }, {});
  l.debug({ x: 1 }, 'off');
  l.info({ y: 2 }, 'on');
  assert.equal(children, 0);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^\{"level":30,"time":1,"pid":\d+,"hostname":"[^"]*","reqId":"req-2","y":2,"msg":"on"\}\n$/);
  l.info('a message makes the child');
  assert.equal(children, 1);
});
