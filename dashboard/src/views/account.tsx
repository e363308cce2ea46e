/** The signed-in member's own page: who they are here, their merchants, and the authenticator app. */
import { useState } from 'preact/hooks';
import { TotpSetup } from '../totp';
import { Fields, useApp } from '../ui';

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
    </section>
  );
}
