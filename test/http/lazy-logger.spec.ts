/** The per-request logger (src/http/lazy-logger.ts): the same child as pino's, made only when a line is logged. */
import pino from 'pino';
import { lazyChildLogger } from '../../src/http/lazy-logger';

/** A pino logger writing to `lines`; with `counted`, its `child` counts the children made (pino children inherit it, so not for grandchildren). */
function capture(level: pino.Level, counted = true) {
  const lines: Record<string, unknown>[] = [];
  const parent = pino({ level, redact: { paths: ['secret'], censor: '[redacted]' } }, { write: (l: string) => lines.push(JSON.parse(l)) });
  let children = 0;
  if (counted) {
    const child = parent.child.bind(parent);
    parent.child = ((...args: Parameters<typeof child>) => {
      children++;
      return child(...args);
    }) as typeof parent.child;
  }
  return { parent, lines, children: () => children };
}

test('no child is made for a request that logs nothing, or only below the level', () => {
  const { parent, children } = capture('info');
  const log = lazyChildLogger(parent, { reqId: 'req_1' }, {});
  log.debug('not shown');
  log.trace({ a: 1 }, 'not shown');
  expect(log.level).toBe('info');
  expect(children()).toBe(0);
});

test('a line at an enabled level goes through the same child: bindings, redaction, level', () => {
  const { parent, lines, children } = capture('info');
  const log = lazyChildLogger(parent, { reqId: 'req_2' }, {});
  log.error({ secret: 'sk_test_abc', requestId: 'req_2' }, 'unhandled error');
  log.warn('second line');
  expect(children()).toBe(1);
  expect(lines).toEqual([
    expect.objectContaining({ level: 50, reqId: 'req_2', secret: '[redacted]', msg: 'unhandled error' }),
    expect.objectContaining({ level: 40, reqId: 'req_2', msg: 'second line' }),
  ]);
});

test('child(), a level of its own and a level change behave as on the pino child', () => {
  const { parent, lines } = capture('warn', false);
  const own = lazyChildLogger(parent, { reqId: 'req_3' }, { level: 'debug' });
  own.debug('shown: the child has its own level');
  own.child({ part: 'x' }).info('from a grandchild');
  const changed = lazyChildLogger(parent, { reqId: 'req_4' }, {});
  changed.level = 'trace';
  changed.trace('shown after the change');
  expect(lines.map((l) => [l.reqId, l.part, l.msg])).toEqual([
    ['req_3', undefined, 'shown: the child has its own level'],
    ['req_3', 'x', 'from a grandchild'],
    ['req_4', undefined, 'shown after the change'],
  ]);
});
