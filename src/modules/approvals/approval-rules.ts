/**
 * Who may approve a payout under a policy (four eyes), as one pure function: the votes a
 * payout has, the rule it was created under, and the principal voting. Without a policy
 * (rule null) any principal allowed to approve moves it with one call, as the spec says.
 */
import { ApiError } from '../../domain/errors';
import { personOf, wireActor, type Principal, type WireActor } from '../../domain/permissions';

/**
 * A recorded approval. `person` (stored, never on the wire) is who the actor counts as: a
 * member, or the member (or operator's key) behind a key; votes recorded before it existed
 * count as their actor.
 */
export interface ApprovalVote {
  actor: WireActor;
  created_at: string;
  person?: string;
}

/** The approval as the API shows it: its actor and time. */
export function approvalToWire(v: ApprovalVote): { actor: WireActor; created_at: string } {
  return { actor: v.actor, created_at: v.created_at };
}

/** A live-mode approval by a member needs a second factor (TOTP) entered this recently. */
export const SECOND_FACTOR_MAX_AGE_MS = 5 * 60_000;

/**
 * A member changing something in live mode that guards live money (an approval policy) needs a
 * second factor entered within SECOND_FACTOR_MAX_AGE_MS, as a live approval does; API keys never
 * reach here (the capability is a member's).
 */
export function checkLiveSecondFactor(principal: Principal | undefined, environment: 'test' | 'live', now: Date, what: string): void {
  if (environment !== 'live' || principal?.type !== 'member') return;
  const at = principal.secondFactorAt?.getTime();
  if (at === undefined || now.getTime() - at > SECOND_FACTOR_MAX_AGE_MS) {
    throw new ApiError('permission_denied', `${what} in live mode needs an authentication code entered in the last 5 minutes.`);
  }
}

export interface VoteContext {
  rule: 'members' | 'members_or_keys' | null;
  /** The person who created the record (`personOf` its creator). */
  createdBy: string | null;
  votes: readonly ApprovalVote[];
  environment: 'test' | 'live';
  now: Date;
}

/**
 * Throws the contract's refusal when `principal` may not vote on this payout (or payout
 * batch: `noun` names it in the messages); returns the vote otherwise.
 */
export function castVote(principal: Principal, v: VoteContext, noun = 'payout intent'): ApprovalVote {
  const person = personOf(principal);
  const vote = { actor: wireActor(principal), created_at: v.now.toISOString(), person };
  if (v.rule === null) return vote;
  if (principal.type === 'api_key' && v.rule === 'members') {
    throw new ApiError('approval_requires_member', `This ${noun} needs approvals by members of the team; an API key cannot approve it.`);
  }
  // People, not keys: the creator's own keys are the creator, and a person's keys are that person.
  if (v.createdBy !== null && (person === v.createdBy || principal.id === v.createdBy)) {
    throw new ApiError('approval_by_creator', `The creator of a ${noun} cannot approve it, nor can a key they made.`);
  }
  if (v.votes.some((x) => (x.person ?? x.actor.id) === person || (x.actor.type === principal.type && x.actor.id === principal.id))) {
    throw new ApiError('approval_already_recorded', `Your approval of this ${noun} is already recorded; another person must approve it.`);
  }
  if (principal.type === 'member' && v.environment === 'live') {
    const at = principal.secondFactorAt?.getTime();
    if (at === undefined || v.now.getTime() - at > SECOND_FACTOR_MAX_AGE_MS) {
      throw new ApiError('permission_denied', `Approving a live ${noun} needs an authentication code entered in the last 5 minutes (payout_approvals:write).`);
    }
  }
  return vote;
}

/**
 * A vote on a record under the gate: the votes it then has, and whether they reach the count
 * (the approve moves it on) or not (the vote is recorded and it keeps waiting).
 */
export function vote(
  principal: Principal | undefined,
  record: { approvalRule: VoteContext['rule']; createdBy: string | null; approvals: ApprovalVote[] | null; approvalsRequired: number },
  environment: 'test' | 'live',
  now: Date,
  noun?: string,
): { approvals: ApprovalVote[]; reached: boolean } {
  const votes = record.approvals ?? [];
  const cast = principal ? castVote(principal, { rule: record.approvalRule, createdBy: record.createdBy, votes, environment, now }, noun) : undefined;
  const approvals = cast ? [...votes, cast] : votes;
  return { approvals, reached: approvals.length >= record.approvalsRequired };
}
