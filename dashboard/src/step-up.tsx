/**
 * A live approval (and a live approval-policy change) needs an authentication code from the
 * last 5 minutes: in live mode the button asks for one (confirmSecondFactor) before it acts.
 * In test mode it acts at once. `confirm` names the form's submit button.
 */
import { useState } from 'preact/hooks';
import { useAction, useApp } from './ui';
import { ConfirmSecondFactorDocument } from './operations/me';

export function useStepUp(approve: () => Promise<void>, confirm = 'Confirm and approve') {
  const { api, me } = useApp();
  const [asking, setAsking] = useState(false);
  const [code, setCode] = useState('');
  const action = useAction();

  const start = async () => {
    if (me.environment !== 'LIVE') return approve();
    setAsking(true);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    return action.run(async () => {
      await api.mutate(ConfirmSecondFactorDocument, { code: code.replace(/\s/g, '') });
      setAsking(false);
      setCode('');
      await approve();
    });
  };
  const form = asking ? (
    <form class="step-up" onSubmit={(e) => void submit(e)} data-testid="step-up">
      <label for="step-up-code">Authentication code</label>
      <input id="step-up-code" inputMode="numeric" autoComplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)} required />
      {action.error && (
        <p class="error" role="alert">
          {action.error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {confirm}
        </button>
        <button type="button" onClick={() => setAsking(false)} disabled={action.busy}>
          Back
        </button>
      </div>
    </form>
  ) : null;
  return { start, form, asking };
}
