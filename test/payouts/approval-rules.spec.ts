/** The four-eyes rules for every kind of principal, members included (they come from sign-in; here built directly). */
import { castVote, SECOND_FACTOR_MAX_AGE_MS, type VoteContext } from '../../src/modules/approvals/approval-rules';
import { FULL_ACCESS, type Principal } from '../../src/domain/permissions';

const now = new Date('2026-06-01T00:00:00Z');
const member = (id: string, extra: Partial<Extract<Principal, { type: 'member' }>> = {}): Principal => ({
  type: 'member',
  id,
  email: `${id}@example.com`,
  role: 'finance',
  ...extra,
});
const key: Principal = { type: 'api_key', id: 'key_1', restricted: false, grants: FULL_ACCESS };
const ctx = (over: Partial<VoteContext> = {}): VoteContext => ({ rule: 'members', createdBy: 'key_1', votes: [], environment: 'test', now, ...over });
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as { code: string }).code;
  }
};

test('no policy: anyone allowed to approve votes, the creator included', () => {
  expect(castVote(key, ctx({ rule: null }))).toEqual({
    actor: { type: 'api_key', id: 'key_1', restricted: false },
    created_at: now.toISOString(),
    person: 'key_1',
  });
});

test('people, not keys: a key counts as the person who made it, for the creator rule and for repeats', () => {
  const keyOf = (id: string, person?: string): Principal => ({ ...key, id, ...(person ? { person } : {}) });
  const rule = 'members_or_keys' as const;
  // The creator's own keys are the creator.
  expect(codeOf(() => castVote(keyOf('key_9', 'usr_a'), ctx({ rule, createdBy: 'usr_a' })))).toBe('approval_by_creator');
  // Two keys of one person, or a person and their key, in either order, count once.
  const byKey = castVote(keyOf('key_2', 'usr_b'), ctx({ rule }));
  expect(byKey.person).toBe('usr_b');
  expect(codeOf(() => castVote(keyOf('key_3', 'usr_b'), ctx({ rule, votes: [byKey] })))).toBe('approval_already_recorded');
  expect(codeOf(() => castVote(member('usr_b'), ctx({ rule, votes: [byKey] })))).toBe('approval_already_recorded');
  const byMember = castVote(member('usr_c'), ctx({ rule }));
  expect(codeOf(() => castVote(keyOf('key_4', 'usr_c'), ctx({ rule, votes: [byMember] })))).toBe('approval_already_recorded');
  // An operator's key (no person) is itself; a vote stored before people were recorded counts as its actor.
  const { person: _dropped, ...legacy } = castVote(keyOf('key_5'), ctx({ rule }));
  expect(codeOf(() => castVote(keyOf('key_5'), ctx({ rule, votes: [legacy] })))).toBe('approval_already_recorded');
  expect(codeOf(() => castVote(keyOf('key_6'), ctx({ rule, votes: [legacy] })))).toBe('ok');
});

test('members policy: keys refused, the creator refused, a second vote by the same member refused, another member counts', () => {
  expect(codeOf(() => castVote({ ...key, id: 'key_2' }, ctx()))).toBe('approval_requires_member');
  expect(codeOf(() => castVote(member('usr_a'), ctx({ createdBy: 'usr_a' })))).toBe('approval_by_creator');
  const first = castVote(member('usr_b'), ctx());
  expect(first.actor).toEqual({ type: 'member', id: 'usr_b', email: 'usr_b@example.com' });
  expect(codeOf(() => castVote(member('usr_b'), ctx({ votes: [first] })))).toBe('approval_already_recorded');
  expect(codeOf(() => castVote(member('usr_c'), ctx({ votes: [first] })))).toBe('ok');
});

test('members_or_keys: a key counts, but never its own payout', () => {
  expect(codeOf(() => castVote({ ...key, id: 'key_2' }, ctx({ rule: 'members_or_keys' })))).toBe('ok');
  expect(codeOf(() => castVote(key, ctx({ rule: 'members_or_keys' })))).toBe('approval_by_creator');
});

test('live mode: a member needs a TOTP code from the last 5 minutes (secondFactorAt)', () => {
  const live = ctx({ environment: 'live' });
  expect(codeOf(() => castVote(member('usr_b'), live))).toBe('permission_denied');
  expect(codeOf(() => castVote(member('usr_b', { secondFactorAt: new Date(now.getTime() - SECOND_FACTOR_MAX_AGE_MS - 1) }), live))).toBe('permission_denied');
  expect(codeOf(() => castVote(member('usr_b', { secondFactorAt: new Date(now.getTime() - 60_000) }), live))).toBe('ok');
});
