/** Shared pieces: paged lists, list states, detail lists, the live-event hook. */
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from './api';
import type { Live, LiveEvent } from './live';
import type { MeQuery } from './gql/graphql';
import { label } from './format';

export interface Page<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
}

export type Listener = (event: LiveEvent) => void;

export type Me = NonNullable<MeQuery['me']>;

export interface Ctx {
  api: Api;
  test: boolean;
  listen: (fn: Listener) => () => void;
  me: Me;
  /** Whether the member's role allows `needed`: `<resource>:read|write`, or a team capability (`members`, `owners`...). */
  can: (needed: string) => boolean;
  /** Ends this session here (as the header's Sign out does). */
  signOut: () => void;
  /** The live socket: the last event id seen, and other subscriptions on it. */
  live: Pick<Live, 'lastEventId' | 'watch'>;
}

/** `can` for a member: what `me.permissions` and `me.capabilities` say (write includes read). The server refuses the rest anyway. */
export function allows(me: Pick<Me, 'permissions' | 'capabilities'>, needed: string): boolean {
  const [resource, access] = needed.split(':');
  if (access === undefined) return me.capabilities.includes(needed);
  return me.permissions.includes(`${resource}:write`) || (access === 'read' && me.permissions.includes(`${resource}:read`));
}

export const AppContext = createContext<Ctx>(null as unknown as Ctx);
export const useApp = (): Ctx => useContext(AppContext);

/** Calls `fn` for every live event while the component is mounted. */
export function useLive(fn: Listener): void {
  const { listen } = useApp();
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => listen((e) => ref.current(e)), [listen]);
}

export interface Paged<T> {
  loading: boolean;
  error?: string;
  nodes: T[];
  hasNext: boolean;
  page: number;
  next: () => void;
  previous: () => void;
  refresh: () => void;
  update: (fn: (nodes: T[]) => T[]) => void;
}

/** Cursor paging forward (the API pages forward only, newest first); "previous" walks back the cursors seen. */
export function usePaged<T>(load: (after: string | null) => Promise<Page<T>>, key: string): Paged<T> {
  const [cursors, setCursors] = useState<{ key: string; stack: (string | null)[] }>({ key, stack: [null] });
  const stack = cursors.key === key ? cursors.stack : [null];
  const after = stack[stack.length - 1];
  const [state, setState] = useState<{ loading: boolean; error?: string; nodes: T[]; next: string | null }>({
    loading: true,
    nodes: [],
    next: null,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load(after).then(
      (r) => current && setState({ loading: false, nodes: r.nodes, next: r.pageInfo.hasNextPage ? (r.pageInfo.endCursor ?? null) : null }),
      (e: Error) => current && setState({ loading: false, nodes: [], next: null, error: e.message }),
    );
    return () => {
      current = false;
    };
  }, [key, after, tick]);
  return {
    ...state,
    hasNext: state.next !== null,
    page: stack.length,
    next: () => state.next && setCursors({ key, stack: [...stack, state.next] }),
    previous: () => setCursors({ key, stack: stack.slice(0, -1) }),
    refresh: () => setTick((t) => t + 1),
    update: (fn) => setState((s) => ({ ...s, nodes: fn(s.nodes) })),
  };
}

/** Loading / error / empty states, then the list. */
export function ListState<T>({ paged, empty, children }: { paged: Paged<T>; empty: string; children: ComponentChildren }) {
  if (paged.error)
    return (
      <p class="error" role="alert">
        Could not load: {paged.error}{' '}
        <button type="button" onClick={paged.refresh}>
          Retry
        </button>
      </p>
    );
  if (paged.loading && paged.nodes.length === 0)
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  if (paged.nodes.length === 0)
    return (
      <p class="muted" data-testid="empty">
        {empty}
      </p>
    );
  return <>{children}</>;
}

export function Pager<T>({ paged }: { paged: Paged<T> }) {
  if (paged.page === 1 && !paged.hasNext) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" onClick={paged.previous} disabled={paged.page === 1}>
        Previous
      </button>
      <span>Page {paged.page}</span>
      <button type="button" onClick={paged.next} disabled={!paged.hasNext} data-testid="next-page">
        Next
      </button>
    </nav>
  );
}

export function Status({ value }: { value: string }) {
  return (
    <span class={`badge s-${value.toLowerCase()}`} data-testid="status">
      {label(value)}
    </span>
  );
}

export function Fields({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="fields">
      {rows
        .filter(([, v]) => v !== null && v !== undefined && v !== '')
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
    </dl>
  );
}

/** A table in its scrolling frame; a header cell is its text, or [text, class] (`wide`: hidden on phones, `sr`: for screen readers only). */
export function Table({
  testId,
  caption,
  head,
  children,
}: {
  testId?: string;
  /** For screen readers: what the rows are and in what order. */
  caption?: string;
  head: (string | [string, string])[];
  children: ComponentChildren;
}) {
  // A frame that scrolls on narrow screens is a focusable, named region: keyboard users scroll it too.
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption ?? 'Table'}>
      <table data-testid={testId}>
        {caption && <caption class="sr">{caption}</caption>}
        <thead>
          <tr>
            {head.map((h) => {
              const [text, cls] = typeof h === 'string' ? [h, undefined] : h;
              return (
                <th key={text} scope="col" class={cls === 'sr' ? undefined : cls}>
                  {cls === 'sr' ? <span class="sr">{text}</span> : text}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A read-only value with a Copy button (and "Copied." for screen readers too). */
export function CopyField({ label, value, testId }: { label: string; value: string; testId: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setCopied('Copied.'),
      () => setCopied('Could not copy: select the text and copy it yourself.'),
    );
  return (
    <>
      <label for={`${testId}-field`}>{label}</label>
      <div class="copy-row">
        <input id={`${testId}-field`} readOnly value={value} data-testid={testId} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()} data-testid={`copy-${testId}`}>
          Copy<span class="sr"> {label.toLowerCase()}</span>
        </button>
      </div>
      <p class="muted" role="status" aria-live="polite">
        {copied ?? ''}
      </p>
    </>
  );
}

/** A detail panel: a focusable heading (focus moves there when it opens) and a close link. */
export function Panel({ title, back, children }: { title: string; back: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [title]);
  return (
    <section class="panel" aria-labelledby="detail-title" data-testid="details">
      <div class="panel-head">
        <h2 id="detail-title" tabIndex={-1} ref={heading}>
          {title}
        </h2>
        <a href={back} class="close">
          Close<span class="sr"> details</span>
        </a>
      </div>
      {children}
    </section>
  );
}

/** Runs an action, with a busy flag and its error. */
export function useAction(): { busy: boolean; error: string | null; run: (fn: () => Promise<void>) => Promise<void>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return {
    busy,
    error,
    /** Forgets the last error: a later step (a new file chosen) made it stale. */
    clear: () => setError(null),
    async run(fn) {
      setBusy(true);
      setError(null);
      try {
        await fn();
      } catch (e) {
        setError((e as Error).message);
      } finally {
        setBusy(false);
      }
    },
  };
}

/** Load one record (details); reloads when `key` or `tick` changes. */
export function useRecord<T>(load: () => Promise<T>, key: string): { data?: T; error?: string; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (e: Error) => current && setState({ error: e.message, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [key, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}
