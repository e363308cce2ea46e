/**
 * Password hashing: new hashes use OWASP's first argon2id setting by default (19 MiB, 2 passes,
 * 1 lane); a setting below 8 MiB or 1 pass is refused at start; a hash carries its own cost,
 * so one made at another cost still verifies. (The test servers hash at the lowest accepted
 * cost, test/helpers/server.ts: this is where the default is checked.)
 */
import { loadConfig } from '../../src/config';
import { Passwords } from '../../src/modules/people/credentials';

const PASSWORD = 'correct horse battery staple';

test("the default is OWASP's argon2id setting, and a hash says so", async () => {
  const { passwordHashing } = loadConfig({});
  expect(passwordHashing).toEqual({ memoryKib: 19_456, passes: 2 });
  const hash = await new Passwords(passwordHashing).hash(PASSWORD);
  expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
});

test('a cost below 8 MiB or 1 pass is refused at start', () => {
  expect(() => loadConfig({ PASSWORD_HASH_MEMORY_KIB: '8191' })).toThrow(/^PASSWORD_HASH_MEMORY_KIB must be a whole number >= 8192/);
  expect(() => loadConfig({ PASSWORD_HASH_PASSES: '0' })).toThrow(/^PASSWORD_HASH_PASSES must be a whole number >= 1/);
});

test('a hash made at another cost verifies under the default, and only with its password', async () => {
  const cheap = await new Passwords({ memoryKib: 8_192, passes: 1 }).hash(PASSWORD);
  expect(cheap).toMatch(/\$m=8192,p=1,t=1\$/);
  const passwords = new Passwords(loadConfig({}).passwordHashing);
  expect(await passwords.verify(cheap, PASSWORD)).toBe(true);
  expect(await passwords.verify(cheap, `${PASSWORD}!`)).toBe(false);
  expect(await passwords.verify(null, PASSWORD)).toBe(false);
});
