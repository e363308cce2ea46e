/**
 * A live approval needs an authentication code from the last 5 minutes: in live mode the
 * Approve button asks for one (confirmSecondFactor) before it approves. In test mode it
 * approves at once.
 */
import { useState } from 'preact/hooks';
import { useApp } from './ui';
import { ConfirmSecondFactorDocument } from './operations/me';

export function useStepUp(approve: () => Promise<void>) {
  const { api, me } = useApp();
  const [asking, setAsking] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const start = async () => {
    if (me.environment !== 'LIVE') return approve();
    setError(null);
    setAsking(true);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.mutate(ConfirmSecondFactorDocument, { code: code.replace(/\s/g, '') });
      setAsking(false);
      setCode('');
      await approve();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const form = asking ? (
    <form class="step-up" onSubmit={(e) => void submit(e)} data-testid="step-up">
      <label for="step-up-code">Authentication code</label>
      <input id="step-up-code" inputMode="numeric" autoComplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)} required />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Confirm and approve
        </button>
        <button type="button" onClick={() => setAsking(false)} disabled={busy}>
          Back
        </button>
      </div>
    </form>
  ) : null;
  return { start, form, asking };
}
