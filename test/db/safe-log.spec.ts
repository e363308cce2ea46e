/** The log's view of database errors and statements (src/db/safe-log.ts, src/db/query-counter.ts, createLogger). */
import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
import pino from 'pino';
import { describeStatement, scrubQuoted, serializeError } from '../../src/db/safe-log';
import { CountingLogger } from '../../src/db/query-counter';
import { createLogger } from '../../src/app';
import { loadConfig } from '../../src/config';

function captured(): { stream: Writable; lines: () => string[] } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk, _e, done) {
      out.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines: () => out };
}

/** A mysql2 error as TypeORM wraps it: the driver fills `sql` with the parameters interpolated. */
function mysqlDuplicate(): QueryFailedError {
  const driver = Object.assign(new Error("Duplicate entry 'Somchai Jaidee' for key 'ux_holder'"), {
    code: 'ER_DUP_ENTRY',
    errno: 1062,
    sqlState: '23000',
    sqlMessage: "Duplicate entry 'Somchai Jaidee' for key 'ux_holder'",
    sql: "INSERT INTO `payout_intents`(`id`, `recipient_holder_name`) VALUES ('po_1', 'Somchai Jaidee')",
  });
  return new QueryFailedError('INSERT INTO `payout_intents`(`id`, `recipient_holder_name`) VALUES (?, ?)', ['po_1', 'Somchai Jaidee'], driver);
}

describe('serializeError', () => {
  test('a MySQL duplicate: type, codes, a message without the value, the key name kept; no SQL, no parameters', () => {
    const out = serializeError(mysqlDuplicate());
    expect(out).toEqual({
      type: 'QueryFailedError',
      message: "Duplicate entry '?' for key 'ux_holder'",
      code: 'ER_DUP_ENTRY',
      errno: 1062,
      sqlState: '23000',
      stack: expect.stringMatching(/^QueryFailedError: Duplicate entry '\?' for key 'ux_holder'\n\s+at /),
    });
    expect(JSON.stringify(out)).not.toMatch(/Somchai|INSERT|VALUES|po_1/);
  });

  test('a SQLite error keeps its message (it quotes no value) and code', () => {
    const driver = Object.assign(new Error('UNIQUE constraint failed: payout_intents.recipient_holder_name'), {
      code: 'SQLITE_CONSTRAINT_UNIQUE',
    });
    const out = serializeError(new QueryFailedError('INSERT INTO "payout_intents" VALUES (?)', ['Somchai'], driver));
    expect(out).toMatchObject({
      type: 'QueryFailedError',
      message: 'UNIQUE constraint failed: payout_intents.recipient_holder_name',
      code: 'SQLITE_CONSTRAINT_UNIQUE',
    });
    expect(JSON.stringify(out)).not.toMatch(/Somchai|INSERT/);
  });

  test('other errors keep their message; causes are serialized the same way; a string is scrubbed', () => {
    const err = new TypeError("Cannot read properties of undefined (reading 'x')", { cause: mysqlDuplicate() });
    const out = serializeError(err);
    expect(out.message).toBe("Cannot read properties of undefined (reading 'x')");
    expect(out.cause).toMatchObject({ type: 'QueryFailedError', message: "Duplicate entry '?' for key 'ux_holder'" });
    expect(serializeError("Incorrect string value: '\\xF0\\x9F' for column `holder_name`").message).toBe(
      "Incorrect string value: '?' for column `holder_name`",
    );
  });

  test('a JSON.parse SyntaxError does not quote the text it read', () => {
    let err: unknown;
    try {
      JSON.parse('{"holder_name": "Somchai Jaidee",}');
    } catch (e) {
      err = e;
    }
    expect(JSON.stringify(serializeError(err))).not.toContain('Somchai');
  });

  test.each([
    ['near "SELEC": syntax error', 'near "?": syntax error'],
    ["Data too long for column 'holder_name' at row 1", "Data too long for column 'holder_name' at row 1"],
    ["Duplicate entry 'it''s' for key 'PRIMARY'", "Duplicate entry '?' for key 'PRIMARY'"],
  ])('scrubQuoted(%j)', (message, expected) => {
    expect(scrubQuoted(message)).toBe(expected);
  });
});

test('describeStatement names the verb and tables only', () => {
  expect(describeStatement('SELECT `k`.`id` FROM `idempotency_keys` `k` INNER JOIN merchants m ON 1 WHERE x = ?')).toEqual({
    statement: 'SELECT',
    tables: ['idempotency_keys', 'merchants'],
  });
  expect(describeStatement('UPDATE "payout_intents" SET "status" = ? WHERE "id" = ?')).toEqual({
    statement: 'UPDATE',
    tables: ['payout_intents'],
  });
});

describe('CountingLogger lines', () => {
  test("a slow statement: one `time` (the line's), its duration as durationMs, no SQL text", () => {
    const { stream, lines } = captured();
    const logger = new CountingLogger(pino({ level: 'trace' }, stream));
    logger.logQuerySlow(1234, "SELECT * FROM payout_intents WHERE recipient_holder_name = 'Somchai'");
    logger.logQueryError(mysqlDuplicate(), 'INSERT INTO payout_intents VALUES (?)');
    logger.logQuery('SELECT 1 FROM merchants');
    const [slow, error, trace] = lines();
    expect(slow.match(/"time":/g)).toHaveLength(1);
    expect(JSON.parse(slow)).toMatchObject({ msg: 'slow sql', durationMs: 1234, statement: 'SELECT', tables: ['payout_intents'] });
    expect(JSON.parse(error)).toMatchObject({ msg: 'sql error', statement: 'INSERT', err: { code: 'ER_DUP_ENTRY' } });
    expect(JSON.parse(trace)).toMatchObject({ msg: 'sql', statement: 'SELECT', tables: ['merchants'] });
    expect(lines().join('\n')).not.toMatch(/Somchai|INSERT INTO|SELECT \*/);
  });
});

describe('createLogger', () => {
  test('errors go through serializeError; credentials, parameters, SQL and GraphQL variables are redacted wherever they are put', () => {
    const { stream, lines } = captured();
    const log = createLogger({ ...loadConfig({}), logLevel: 'info' }, stream);
    log.error({ err: mysqlDuplicate() }, 'unhandled error');
    log.error(mysqlDuplicate());
    log.info(
      {
        req: { headers: { authorization: 'Basic c2VjcmV0', 'idempotency-key': 'k-secret' } },
        connectionParams: { authorization: 'Basic c2VjcmV0' },
      },
      'request',
    );
    log.info({ parameters: ['Somchai'], sql: 'INSERT x', variables: { holder: 'Somchai' }, error: { parameters: ['Somchai'], sql: 'INSERT y' } }, 'misc');
    const text = lines().join('\n');
    expect(text).not.toMatch(/Somchai|c2VjcmV0|k-secret|INSERT/);
    expect(JSON.parse(lines()[0]).err).toMatchObject({ type: 'QueryFailedError', code: 'ER_DUP_ENTRY' });
    expect(JSON.parse(lines()[1]).err ?? JSON.parse(lines()[1])).toMatchObject({ type: 'QueryFailedError' });
  });
});
