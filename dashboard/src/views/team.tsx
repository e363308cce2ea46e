/**
 * The merchant's team (owners and admins): members and their roles, invite (the one-time
 * setup link is shown here once, to the inviter, who passes it on), change a role, remove.
 * A member who has not used their link yet can be given a new one (the old one stops working);
 * an owner gives a member who forgot their password a reset link.
 * Only an owner is offered owner actions; the server enforces every rule (an admin touching
 * an owner, the last owner) and its refusals are shown as they come.
 */
import { useState } from 'preact/hooks';
import type { Role } from '../gql/graphql';
import { when } from '../format';
import {
  ChangeMemberRoleDocument,
  InviteMemberDocument,
  IssuePasswordResetLinkDocument,
  IssueSetupLinkDocument,
  RemoveMemberDocument,
  TeamDocument,
} from '../operations/team';
import { CopyField, Table, useAction, useApp, useRecord } from '../ui';

const ROLES: Role[] = ['OWNER', 'ADMIN', 'DEVELOPER', 'FINANCE', 'VIEWER'];

export function Team() {
  const { api, can, me } = useApp();
  const record = useRecord(() => api.query(TeamDocument, {}), 'team');
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('VIEWER');
  const [invited, setInvited] = useState<{ email: string; setupUrl: string | null; reset?: boolean } | null>(null);
  const owners = can('owners');
  const offered = ROLES.filter((r) => owners || r !== 'OWNER');

  const invite = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const r = await api.mutate(InviteMemberDocument, { email: email.trim(), role });
      setInvited({ email: email.trim(), setupUrl: r.inviteMember?.setupUrl ?? null });
      setEmail('');
      record.reload();
    });
  };
  const changeRole = (userId: string, next: Role) =>
    action.run(async () => {
      await api.mutate(ChangeMemberRoleDocument, { userId, role: next });
      record.reload();
    });
  const newLink = (userId: string, who: string) =>
    action.run(async () => {
      const r = await api.mutate(IssueSetupLinkDocument, { userId });
      setInvited({ email: who, setupUrl: r.issueSetupLink?.setupUrl ?? null });
    });
  const resetLink = (userId: string, who: string) =>
    action.run(async () => {
      const r = await api.mutate(IssuePasswordResetLinkDocument, { userId });
      setInvited({ email: who, setupUrl: r.issuePasswordResetLink?.setupUrl ?? null, reset: true });
    });
  const remove = (userId: string, who: string) => {
    if (!confirm(`Remove ${who} from the team? Their sessions on this merchant end at once.`)) return;
    void action.run(async () => {
      await api.mutate(RemoveMemberDocument, { userId });
      record.reload();
    });
  };

  return (
    <section aria-labelledby="team-title">
      <h1 id="team-title">Team</h1>
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {record.data && (
        <Table testId="team" head={['Member', 'Role', 'Status', ['Joined', 'wide'], ['Actions', 'sr']]}>
          {record.data.teamMembers.map((m) => {
            const mayTouch = m.id !== me.id && (owners || m.role !== 'OWNER');
            return (
              <tr key={m.id} data-testid={`member-${m.email}`}>
                <td>
                  {m.displayName ? `${m.displayName} <${m.email}>` : m.email}
                  {m.id === me.id && <span class="muted"> (you)</span>}
                </td>
                <td>
                  {mayTouch ? (
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      disabled={action.busy}
                      onChange={(e) => void changeRole(m.id, e.currentTarget.value as Role)}
                    >
                      {offered.map((r) => (
                        <option key={r} value={r}>
                          {r.toLowerCase()}
                        </option>
                      ))}
                    </select>
                  ) : (
                    m.role.toLowerCase()
                  )}
                </td>
                <td>{m.active ? (m.totpEnabled ? 'active, authenticator on' : 'active') : 'invited (link not used yet)'}</td>
                <td class="wide">{when(m.joinedAt)}</td>
                <td class="row-actions">
                  {mayTouch && !m.active && (
                    <button type="button" disabled={action.busy} onClick={() => void newLink(m.id, m.email)} data-testid="new-setup-link">
                      New setup link<span class="sr"> for {m.email}</span>
                    </button>
                  )}
                  {mayTouch && owners && m.active && (
                    <button type="button" disabled={action.busy} onClick={() => void resetLink(m.id, m.email)} data-testid="reset-link">
                      Password reset link<span class="sr"> for {m.email}</span>
                    </button>
                  )}
                  {mayTouch && (
                    <button type="button" class="danger" disabled={action.busy} onClick={() => remove(m.id, m.email)}>
                      Remove<span class="sr"> {m.email}</span>
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </Table>
      )}
      {action.error && (
        <p class="error" role="alert" data-testid="team-error">
          {action.error}
        </p>
      )}
      <h2>Invite someone</h2>
      <form class="filters" onSubmit={invite} data-testid="invite">
        <label>
          Email
          <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} data-testid="invite-email" />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} data-testid="invite-role">
            {offered.map((r) => (
              <option key={r} value={r}>
                {r.toLowerCase()}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          Invite
        </button>
      </form>
      {invited && (
        <div class="notice" role="status" data-testid="invitation">
          {invited.setupUrl ? (
            <>
              <p>
                {invited.reset ? 'A password reset link: it sets a new password and ends their sessions. ' : ''}
                Send this link to <strong>{invited.email}</strong> yourself: it is shown only now, works once, and expires in 72 hours. Lost it? &ldquo;New
                setup link&rdquo; on their row makes another (this one then stops working).
              </p>
              <CopyField label="Setup link" value={invited.setupUrl} testId="setup-url" />
            </>
          ) : (
            <p>
              <strong>{invited.email}</strong> already has an account: they sign in with their password and find this merchant in the switcher.
            </p>
          )}
          <button type="button" onClick={() => setInvited(null)}>
            Done
          </button>
        </div>
      )}
    </section>
  );
}
