/** The signed-in member's own page: who they are here, their merchants, their password, the authenticator app, and their sessions. */
import { useState } from 'preact/hooks';
import { when, browserAndOs } from '../format';
import { EndSessionDocument, SessionsDocument } from '../operations/keys';
import { ChangePasswordDocument, RegenerateRecoveryCodesDocument } from '../operations/me';
import { RecoveryCodeActions, TotpSetup } from '../totp';
import { Fields, Table, useAction, useApp, useRecord } from '../ui';

export function Account() {
  const { api, me } = useApp();
  const [totpDone, setTotpDone] = useState(false);
  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Your account</h1>
      <Fields
        rows={[
          ['Email', me.email],
          ['Name', me.displayName],
          ['Role here', me.role.toLowerCase()],
          ['Merchants', me.memberships.map((m) => `${m.merchant.name} (${m.role.toLowerCase()})`).join(', ')],
          ['Authenticator app', me.totpEnabled || totpDone ? 'on' : 'off'],
        ]}
      />
      {!me.totpEnabled && !totpDone && <TotpSetup api={api} onDone={() => setTotpDone(true)} doneLabel="Done" />}
      {(me.totpEnabled || totpDone) && <NewRecoveryCodes />}
      <ChangePassword />
      <Sessions />
    </section>
  );
}

/** Where the member is signed in: ending another session signs that browser out (its socket closes); ending this one signs out here. */
function Sessions() {
  const { api, signOut } = useApp();
  const record = useRecord(() => api.query(SessionsDocument, {}), 'sessions');
  const action = useAction();
  const end = (id: string, current: boolean) => {
    if (current) return signOut();
    void action.run(async () => {
      await api.mutate(EndSessionDocument, { id });
      record.reload();
    });
  };
  return (
    <>
      <h2>Sessions</h2>
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {record.data && (
        <Table testId="sessions" head={['Browser', 'Signed in', 'Last used', ['Ends by', 'wide'], ['Actions', 'sr']]}>
          {record.data.sessions.map((s) => (
            <tr key={s.id} data-testid={s.current ? 'session-current' : `session-${s.id}`}>
              <td>
                <span title={s.userAgent ?? undefined}>{browserAndOs(s.userAgent)}</span>
                {s.current && <strong> (this session)</strong>}
              </td>
              <td>{when(s.createdAt)}</td>
              <td>{when(s.lastSeenAt)}</td>
              <td class="wide">{when(s.expiresAt)}</td>
              <td>
                <button type="button" class="danger" disabled={action.busy} onClick={() => end(s.id, s.current)}>
                  End<span class="sr"> {s.current ? 'this session (sign out)' : `the session signed in ${when(s.createdAt)}`}</span>
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {action.error && (
        <p class="error" role="alert">
          {action.error}
        </p>
      )}
    </>
  );
}

/** Change the password: the current one is asked for; the member's other sessions end. */
function ChangePassword() {
  const { api } = useApp();
  const action = useAction();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const submit = (e: Event) => {
    e.preventDefault();
    setDone(false);
    void action.run(async () => {
      await api.mutate(ChangePasswordDocument, { currentPassword: current, newPassword: next });
      setCurrent('');
      setNext('');
      setDone(true);
    });
  };
  return (
    <form class="form" onSubmit={submit} aria-labelledby="password-title" data-testid="change-password">
      <h2 id="password-title">Password</h2>
      <label for="current-password">Current password</label>
      <input
        id="current-password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onInput={(e) => setCurrent(e.currentTarget.value)}
      />
      <label for="new-password">New password (at least 12 characters)</label>
      <input
        id="new-password"
        type="password"
        autoComplete="new-password"
        required
        minLength={12}
        value={next}
        onInput={(e) => setNext(e.currentTarget.value)}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Change password
        </button>
      </div>
      {action.error && (
        <p class="error" role="alert" data-testid="password-error">
          {action.error}
        </p>
      )}
      {done && !action.error && (
        <p class="ok" role="status" data-testid="password-changed">
          Password changed. Your other sessions have ended.
        </p>
      )}
    </form>
  );
}

/** New recovery codes, confirmed with a current authentication code: shown once, with Copy and Download. */
function NewRecoveryCodes() {
  const { api } = useApp();
  const action = useAction();
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const r = await api.mutate(RegenerateRecoveryCodesDocument, { code: code.replace(/\s/g, '') });
      setCode('');
      setCodes(r.regenerateRecoveryCodes?.recoveryCodes ?? null);
    });
  };
  return (
    <section aria-labelledby="recovery-title">
      <h2 id="recovery-title">Recovery codes</h2>
      {codes ? (
        <>
          <p role="status">New recovery codes, shown only now: the earlier ones no longer work.</p>
          <ul class="codes" data-testid="new-recovery-codes">
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <RecoveryCodeActions codes={codes} />
          <button type="button" onClick={() => setCodes(null)}>
            Done
          </button>
        </>
      ) : (
        <form class="form" onSubmit={submit}>
          <label for="recovery-code">Authentication code</label>
          <input id="recovery-code" inputMode="numeric" autoComplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Make new recovery codes
            </button>
          </div>
          {action.error && (
            <p class="error" role="alert">
              {action.error}
            </p>
          )}
        </form>
      )}
    </section>
  );
}
