/** Events, newest first, filtered by type; new events appear at the top as they happen. */
import { useState } from 'preact/hooks';
import type { EventsQuery } from '../gql/graphql';
import { objectIdOf, when } from '../format';
import { EventsDocument } from '../operations/events';
import { ListState, Pager, useApp, useLive, usePaged } from '../ui';

type EventRow = NonNullable<EventsQuery['events']>['nodes'][number];
export function Events() {
  const { api } = useApp();
  const [types, setTypes] = useState('');
  const [applied, setApplied] = useState('');
  const typeList = applied
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const paged = usePaged<EventRow>(
    async (after) => (await api.query(EventsDocument, { after, filter: typeList.length ? { type: typeList } : null })).events,
    applied,
  );
  const [open, setOpen] = useState<string | null>(null);
  useLive((e) => {
    if (paged.page === 1 && typeList.length === 0) paged.update((rows) => (rows.some((r) => r.id === e.id) ? rows : [e, ...rows]));
  });
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(types);
        }}
      >
        <label>
          Types (comma-separated; <code>payout_intent.*</code> works)
          <input value={types} onInput={(e) => setTypes(e.currentTarget.value)} />
        </label>
        <button type="submit">Apply</button>
      </form>
      <ListState paged={paged} empty="No events.">
        <ul class="events" data-testid="events">
          {paged.nodes.map((e) => (
            <li key={e.id}>
              <button type="button" class="link" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                <strong>{e.type}</strong> <code>{objectIdOf(e)}</code> <span class="muted">{when(e.createdAt)}</span>
              </button>
              {open === e.id && <pre>{JSON.stringify(e.data.object, null, 2)}</pre>}
            </li>
          ))}
        </ul>
        <Pager paged={paged} />
      </ListState>
    </section>
  );
}
