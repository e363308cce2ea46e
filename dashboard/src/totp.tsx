/**
 * Setting up an authenticator app for the signed-in member: enrolTotp answers a secret, its
 * otpauth:// URI and a QR code (an SVG, shown as an image: nothing is injected as markup);
 * confirmTotp with a current code turns it on and answers ten recovery codes, shown here
 * once. Used by the setup page and the account page.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Api } from './api';
import { ConfirmTotpDocument, EnrolTotpDocument } from './operations/me';

type Step = { kind: 'start' } | { kind: 'scan'; secret: string; uri: string; qr: string } | { kind: 'codes'; codes: string[] };

export function TotpSetup({ api, onDone, doneLabel }: { api: Api; onDone: () => void; doneLabel: string }) {
  const [step, setStep] = useState<Step>({ kind: 'start' });
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const enrol = () =>
    run(async () => {
      const { enrolTotp } = await api.mutate(EnrolTotpDocument, {});
      if (!enrolTotp) throw new Error('The authenticator could not be started.');
      setStep({ kind: 'scan', secret: enrolTotp.secret, uri: enrolTotp.uri, qr: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolTotp.qrSvg)}` });
    });
  const confirm = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const { confirmTotp } = await api.mutate(ConfirmTotpDocument, { code: code.replace(/\s/g, '') });
      if (!confirmTotp) throw new Error('The code was not accepted.');
      setStep({ kind: 'codes', codes: confirmTotp.recoveryCodes });
    });
  };
  return (
    <section class="totp" aria-labelledby="totp-title" data-testid="totp">
      <h2 id="totp-title">Authenticator app</h2>
      {step.kind === 'start' && (
        <>
          <p>With an authenticator app, signing in also asks for its 6-digit code. Owners, admins and finance members need one to work in live mode.</p>
          <div class="actions">
            <button type="button" class="primary" onClick={() => void enrol()} disabled={busy} data-testid="totp-start">
              Set up an authenticator app
            </button>
            <button type="button" onClick={onDone} data-testid="totp-skip">
              Not now
            </button>
          </div>
        </>
      )}
      {step.kind === 'scan' && (
        <form onSubmit={confirm}>
          <p>Scan this code with the app, or type the secret into it; then enter the code it shows.</p>
          <img src={step.qr} alt="QR code of the authenticator secret" width={180} height={180} class="qr" />
          <p>
            Secret: <code data-testid="totp-secret">{step.secret}</code>
          </p>
          <p class="muted">
            <code data-testid="totp-uri">{step.uri}</code>
          </p>
          <label for="totp-code">Authentication code</label>
          <input id="totp-code" inputMode="numeric" autoComplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          <button type="submit" class="primary" disabled={busy}>
            Turn on
          </button>
        </form>
      )}
      {step.kind === 'codes' && (
        <>
          <p role="status">The authenticator is on. These recovery codes are shown only now: each signs you in once if you lose the app. Keep them safe.</p>
          <ul class="codes" data-testid="recovery-codes">
            {step.codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <RecoveryCodeActions codes={step.codes} />
          <button type="button" class="primary" onClick={onDone} data-testid="totp-done">
            I have saved them: {doneLabel.toLowerCase()}
          </button>
        </>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** Copy the recovery codes, or download them as a text file (made in the page: nothing leaves the browser). */
export function RecoveryCodeActions({ codes }: { codes: string[] }) {
  const [said, setSaid] = useState('');
  const text = `${codes.join('\n')}\n`;
  const href = useMemo(() => URL.createObjectURL(new Blob([text], { type: 'text/plain' })), [text]);
  useEffect(() => () => URL.revokeObjectURL(href), [href]);
  return (
    <div class="actions">
      <button
        type="button"
        data-testid="copy-recovery-codes"
        onClick={() =>
          void navigator.clipboard.writeText(text).then(
            () => setSaid('Copied.'),
            () => setSaid('Could not copy: select the codes and copy them yourself.'),
          )
        }
      >
        Copy codes
      </button>
      <a href={href} download="recovery-codes.txt" class="button" data-testid="download-recovery-codes">
        Download codes
      </a>
      <span class="muted" role="status" aria-live="polite">
        {said}
      </span>
    </div>
  );
}
