/** The signed-in member's own page: who they are here, their merchants, the authenticator app, and their sessions. */
import { useState } from 'preact/hooks';
import { when } from '../format';
import { EndSessionDocument, SessionsDocument } from '../operations/keys';
import { TotpSetup } from '../totp';
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
                {s.userAgent ?? 'unknown browser'}
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
