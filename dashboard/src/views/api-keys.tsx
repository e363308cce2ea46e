/**
 * API keys (owners, admins, developers): the keys of this merchant and environment with their
 * access, last use and state; create a full or restricted key, roll one with a chosen overlap,
 * revoke one. A new secret is shown once, here, until "Done". The server decides what a member
 * may grant (no more than their role); the form offers only that, and Roll and Revoke only on
 * keys within the member's role. A key is named when it is created and shown by its name.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiKeyFieldsFragment } from '../gql/graphql';
import { when } from '../format';
import { ApiKeysDocument, CreateApiKeyDocument, RevokeApiKeyDocument, RollApiKeyDocument } from '../operations/keys';
import { CopyField, Status, Table, useAction, useApp, useRecord } from '../ui';

type Key = ApiKeyFieldsFragment;
type Access = 'none' | 'read' | 'write';
const DAYS = [0, 1, 2, 3, 4, 5, 6, 7];

/** How a key is named to people: its name, or its public key when it has none. */
export const keyLabel = (k: Pick<Key, 'name' | 'publicKey'>): string => k.name ?? k.publicKey;

function state(k: Key): string {
  if (k.status === 'EXPIRING') return `expires ${when(k.expiresAt)}`;
  if (k.status === 'EXPIRED') return `since ${when(k.expiresAt)}`;
  if (k.status === 'REVOKED') return `since ${when(k.revokedAt)}`;
  return '';
}

export function ApiKeys() {
  const { api, me, can } = useApp();
  const record = useRecord(() => api.query(ApiKeysDocument, {}), 'api-keys');
  const action = useAction();
  const [secret, setSecret] = useState<{ replaces: string | null; name: string | null; publicKey: string; secretKey: string } | null>(null);
  const [name, setName] = useState('');
  const [rolling, setRolling] = useState<Key | null>(null);
  const [days, setDays] = useState(1);
  const overlap = useRef<HTMLSelectElement>(null);
  useEffect(() => overlap.current?.focus(), [rolling?.id]);
  // A new secret shows at the top: focus moves there (the form is further down).
  const notice = useRef<HTMLDivElement>(null);
  useEffect(() => notice.current?.focus(), [secret]);
  // The resources this member may grant at all: those their role reads (the server knows no others they could give).
  const resources = [...new Set(me.permissions.map((p) => p.split(':')[0]))];
  const mayFull = resources.every((r) => can(`${r}:write`));
  const [full, setFull] = useState(mayFull);
  const [grants, setGrants] = useState<Record<string, Access>>({});
  // Roll and Revoke only on keys the member could have made: a full key needs every write, a restricted one its grants.
  const mayManage = (k: Key): boolean => (k.restricted ? (k.permissions ?? []).every((p) => can(p)) : mayFull);

  const shown = (replaces: string | null, k: (Key & { secretKey?: string | null }) | null | undefined) => {
    if (k?.secretKey) setSecret({ replaces, name: k.name ?? null, publicKey: k.publicKey, secretKey: k.secretKey });
    record.reload();
  };
  const create = (e: Event) => {
    e.preventDefault();
    const permissions = Object.entries(grants)
      .filter(([, a]) => a !== 'none')
      .map(([r, a]) => `${r}:${a}`);
    void action.run(async () => {
      const r = await api.mutate(CreateApiKeyDocument, { input: { name: name.trim(), ...(full ? {} : { permissions }) } });
      setGrants({});
      setName('');
      shown(null, r.createApiKey);
    });
  };
  const roll = (e: Event) => {
    e.preventDefault();
    if (!rolling) return;
    void action.run(async () => {
      const r = await api.mutate(RollApiKeyDocument, { id: rolling.id, overlapHours: days * 24 });
      setRolling(null);
      shown(keyLabel(rolling), r.rollApiKey);
    });
  };
  const revoke = (k: Key) => {
    if (!confirm(`Revoke ${keyLabel(k)}? Requests with it are refused from now on.`)) return;
    void action.run(async () => {
      await api.mutate(RevokeApiKeyDocument, { id: k.id });
      record.reload();
    });
  };

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      {record.error && (
        <p class="error" role="alert">
          {record.error}
        </p>
      )}
      {secret && (
        <div class="notice" role="status" tabIndex={-1} ref={notice} data-testid="new-secret">
          <p>
            <strong>
              {secret.replaces ? (
                <>
                  Replacement for <code>{secret.replaces}</code>
                </>
              ) : (
                <>New key {secret.name}</>
              )}
            </strong>
            : copy the secret now. It is shown only this once; the server keeps only a digest.
          </p>
          <CopyField label="Public key" value={secret.publicKey} testId="public-key" />
          <CopyField label="Secret key" value={secret.secretKey} testId="secret-key" />
          <button type="button" onClick={() => setSecret(null)} data-testid="secret-done">
            Done
          </button>
        </div>
      )}
      <div class="actions">
        <button type="button" onClick={record.reload} disabled={record.loading}>
          Refresh
        </button>
      </div>
      {record.data && (
        <Table testId="api-keys" head={['Key and access', ['Created', 'wide'], 'Last used', 'State']}>
          {record.data.apiKeys.map((k) => (
            <tr key={k.id} data-testid={`key-${k.publicKey}`} data-status={k.status}>
              <td>
                {k.name && (
                  <div class="key-name" data-testid="key-name">
                    {k.name}
                  </div>
                )}
                <code class="id">{k.publicKey}</code>
                <div class="muted">{k.restricted ? `restricted: ${k.permissions?.join(', ') || 'nothing'}` : 'full access'}</div>
              </td>
              <td class="wide">{when(k.createdAt)}</td>
              <td data-testid="last-used">{k.lastUsedAt ? when(k.lastUsedAt) : 'never'}</td>
              <td>
                <Status value={k.status} /> {state(k)}
                <div class="actions">
                  {k.status === 'ACTIVE' && mayManage(k) && (
                    <button type="button" disabled={action.busy} onClick={() => setRolling(k)}>
                      Roll<span class="sr"> {keyLabel(k)}</span>
                    </button>
                  )}
                  {(k.status === 'ACTIVE' || k.status === 'EXPIRING') && mayManage(k) && (
                    <button type="button" class="danger" disabled={action.busy} onClick={() => revoke(k)}>
                      Revoke<span class="sr"> {keyLabel(k)}</span>
                    </button>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {action.error && (
        <p class="error" role="alert" data-testid="keys-error">
          {action.error}
        </p>
      )}
      {rolling && (
        <form class="stack" onSubmit={roll} data-testid="roll" aria-labelledby="roll-title">
          <h2 id="roll-title">Roll {rolling.name ?? <code>{rolling.publicKey}</code>}</h2>
          <p>A new key pair with the same access works at once; the old one keeps working for the overlap, then is refused.</p>
          <label>
            Overlap
            <select ref={overlap} value={days} onChange={(e) => setDays(Number(e.currentTarget.value))} data-testid="overlap">
              {DAYS.map((d) => (
                <option key={d} value={d}>
                  {d === 0 ? 'none: the old key stops now' : `${d} day${d === 1 ? '' : 's'}`}
                </option>
              ))}
            </select>
          </label>
          <div class="actions">
            <button type="submit" class="primary" disabled={action.busy}>
              Roll key
            </button>
            <button type="button" onClick={() => setRolling(null)} disabled={action.busy}>
              Back
            </button>
          </div>
        </form>
      )}
      <form class="stack" onSubmit={create} data-testid="create-key" aria-labelledby="create-key-title">
        <h2 id="create-key-title">New key ({me.environment.toLowerCase()} mode)</h2>
        <label>
          Name
          <input
            value={name}
            maxLength={100}
            required
            placeholder="Checkout server"
            onInput={(e) => setName(e.currentTarget.value)}
            data-testid="key-name-input"
          />
        </label>
        <fieldset>
          <legend>Access</legend>
          {mayFull && (
            <label class="inline">
              <input type="radio" name="access" checked={full} onChange={() => setFull(true)} /> Full access
            </label>
          )}
          <label class="inline">
            <input type="radio" name="access" checked={!full} onChange={() => setFull(false)} data-testid="restricted" /> Restricted
          </label>
          {!full && (
            <div class="filters">
              {resources.map((r) => (
                <label key={r}>
                  {r}
                  <select
                    value={grants[r] ?? 'none'}
                    onChange={(e) => setGrants({ ...grants, [r]: e.currentTarget.value as Access })}
                    data-testid={`grant-${r}`}
                  >
                    <option value="none">none</option>
                    <option value="read">read</option>
                    {can(`${r}:write`) && <option value="write">write</option>}
                  </select>
                </label>
              ))}
            </div>
          )}
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy} data-testid="create-key-submit">
            Create key
          </button>
        </div>
      </form>
    </section>
  );
}
