/** The REST test helpers of a record (test mode only, and only for a role that may write the resource), as buttons. */
import { useAction, useApp } from '../ui';

export function TestActions({ kind, id, actions, done }: { kind: string; id: string; actions: string[]; done: () => void }) {
  const { api, test, can } = useApp();
  const action = useAction();
  if (!test || actions.length === 0 || !can(`${kind}:write`)) return null;
  return (
    <div class="test-actions" role="group" aria-label="Test mode helpers">
      <span class="muted">Test helpers:</span>
      {actions.map((a) => (
        <button
          type="button"
          key={a}
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              await api.testHelper(`${kind}/${id}/${a}`);
              done();
            })
          }
        >
          {a}
        </button>
      ))}
      {action.error && (
        <p class="error" role="alert">
          {action.error}
        </p>
      )}
    </div>
  );
}
