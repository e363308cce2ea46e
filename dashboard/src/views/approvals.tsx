/** A payout's approvals: who approved it, and how many more it waits for (its policy's count at creation). */
import type { PayoutQuery } from '../gql/graphql';
import { when } from '../format';

type Payout = NonNullable<PayoutQuery['payoutIntent']>;

export function ApprovalState({ payout }: { payout: Payout }) {
  const { approvals, approvalsRequired, status } = payout;
  const missing = Math.max(approvalsRequired - approvals.length, 0);
  if (approvals.length === 0 && status !== 'REQUIRES_APPROVAL') return null;
  return (
    <div class="approvals" data-testid="approvals">
      {approvals.length > 0 && (
        <ul>
          {approvals.map((a) => (
            <li key={`${a.actor.id}-${a.createdAt}`}>
              Approved by {a.actor.email ?? `API key ${a.actor.id}`} <span class="muted">{when(a.createdAt)}</span>
            </li>
          ))}
        </ul>
      )}
      {status === 'REQUIRES_APPROVAL' && missing > 0 && (
        <p data-testid="approvals-missing">
          Waiting for {missing} more approval{missing === 1 ? '' : 's'} ({approvals.length} of {approvalsRequired}).
        </p>
      )}
    </div>
  );
}
