/**
 * The outage probe (MySQL). A wait longer than DB_PROBE_AFTER_MS, a missed limit, or an
 * error that says the server cannot be reached has the server asked on a connection of its
 * own (`suspect`). A server that answers is only slow (lock waits, load): units go on. One
 * that does not answer within DB_PROBE_TIMEOUT_MS is out: every unit running now is aborted,
 * new units are refused at once at the gate (`refusal`) without touching the pool, and the
 * probe keeps asking until the first answer ends the outage (`onAvailable` listeners run).
 */
import { createConnection, type SslOptions } from 'mysql2';
import type { DataSource } from 'typeorm';
import type { DbSettings } from '../config';
import { DatabaseUnavailableError } from './errors';
import { within } from './deadline';

/** Pause between two probes of a database that is out (each waits up to DB_PROBE_TIMEOUT_MS). */
const PROBE_PAUSE_MS = 500;

/** Where Db reports the start and the end of an outage (pino's Logger fits). */
export interface DbLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** mysql2's own connection (callback API), for the probe. */
interface RawConnection {
  destroy(): void;
  stream?: { destroy(err?: Error): void };
  on(event: 'error' | 'end', listener: () => void): void;
  query(sql: string, callback: (err: Error | null, result: unknown) => void): void;
  end(callback: () => void): void;
}

export class OutageProbe {
  /** Set while the database is out: units fail at once until the probe is answered. */
  private outage?: { since: number; reason: string };
  private probing = false;
  private closed = false;
  /** The abort of every unit running now: an outage fails them all at once. */
  private readonly running = new Set<(reason: string) => void>();
  /** The probe's own connection (kept open between probes; a new one after any failure). */
  private probeConnection?: RawConnection;
  private readonly availableListeners: (() => void)[] = [];

  constructor(
    private readonly ds: DataSource,
    private readonly settings: DbSettings,
    private readonly log?: DbLog,
  ) {
    // Opened now, so that the first probe does not pay for a handshake.
    if (ds.options.type === 'mysql' && ds.isInitialized) this.probeConnection = this.openProbeConnection();
  }

  get available(): boolean {
    return this.outage === undefined;
  }

  get isOut(): boolean {
    return this.outage !== undefined;
  }

  onAvailable(listener: () => void): void {
    this.availableListeners.push(listener);
  }

  /** The error a new unit gets at once while the database is out; undefined otherwise. */
  refusal(): DatabaseUnavailableError | undefined {
    return this.outage ? new DatabaseUnavailableError(`outage: ${this.outage.reason}`, true) : undefined;
  }

  /** Registers a running unit's abort (an outage calls it); returns its deregistration. */
  track(abort: (reason: string) => void): () => void {
    this.running.add(abort);
    return () => this.running.delete(abort);
  }

  /**
   * A wait ran long, a limit was missed, or the server looked unreachable. That alone is not
   * an outage (a lock wait behind a hot row, a busy pool, one connection the server closed):
   * the probe asks the server on a connection of its own. If it does not answer, the
   * database is out: every running unit fails now and the gate refuses new ones; the probe
   * keeps asking and its first answer ends the outage.
   */
  suspect(reason: string): void {
    if (this.ds.options.type !== 'mysql' || this.closed || this.probing) return;
    this.probing = true;
    void (async () => {
      try {
        while (!this.closed) {
          try {
            await this.appliedMigrations(this.settings.probeTimeoutMs, true);
            this.recovered();
            return;
          } catch {
            if (this.closed) return;
            if (!this.outage) {
              this.outage = { since: Date.now(), reason };
              this.log?.warn({ reason }, 'database unavailable: answering 503 service_unavailable until it answers again');
              for (const abort of [...this.running]) abort(`outage: ${reason}`);
            }
            await new Promise<void>((resolve) => setTimeout(resolve, PROBE_PAUSE_MS).unref());
          }
        }
      } finally {
        this.probing = false;
      }
    })();
  }

  /** /readyz on MySQL: the applied migrations, asked on the probe's connection; an answer ends an outage. */
  async readiness(): Promise<string[]> {
    const known = await this.appliedMigrations(this.settings.pingTimeoutMs, false);
    if (this.outage) this.recovered();
    return known;
  }

  /** Stops probing and closes the probe's connection (gracefully unless the database is out). */
  close(): void {
    this.closed = true;
    this.dropProbeConnection(this.probeConnection, !this.outage);
  }

  /**
   * Asks the server for the applied migrations on the probe's own connection (not the
   * pool's: a pool busy with lock waits says nothing about the server), within `timeoutMs`.
   * A kept connection the server had closed meanwhile (wait_timeout) is replaced once. A
   * judging probe (the outage's, not /readyz's) also drops the connection when it times out.
   */
  private async appliedMigrations(timeoutMs: number, judge: boolean): Promise<string[]> {
    const options = this.ds.options as { migrationsTableName?: string };
    const table = (options.migrationsTableName ?? 'migrations').replace(/`/g, '');
    for (let attempt = 0; ; attempt++) {
      const kept = this.probeConnection !== undefined;
      const conn = (this.probeConnection ??= this.openProbeConnection());
      const rows = new Promise<{ name: string }[]>((resolve, reject) =>
        conn.query(`SELECT name FROM \`${table}\``, (err, result) => (err ? reject(err) : resolve(result as { name: string }[]))),
      );
      try {
        const answered = await within(rows, timeoutMs, () => new DatabaseUnavailableError('timeout: probe'));
        return answered.map((r) => r.name);
      } catch (err) {
        const timedOut = err instanceof DatabaseUnavailableError;
        if (judge || !timedOut) this.dropProbeConnection(conn, false);
        if (kept && attempt === 0 && !timedOut) continue;
        throw err;
      }
    }
  }

  private openProbeConnection(): RawConnection {
    const options = this.ds.options;
    if (options.type !== 'mysql') throw new Error('the outage probe asks MySQL/MariaDB only');
    // mysql2 itself, not through the DataSource's pool: the probe needs none of its session settings.
    const conn: RawConnection = createConnection({
      uri: options.url,
      ssl: options.ssl as string | SslOptions | undefined,
      connectTimeout: this.settings.probeTimeoutMs,
    });
    const forget = () => {
      if (this.probeConnection === conn) this.probeConnection = undefined;
    };
    conn.on('error', forget);
    conn.on('end', forget);
    return conn;
  }

  private dropProbeConnection(conn: RawConnection | undefined, graceful: boolean): void {
    if (!conn) return;
    if (this.probeConnection === conn) this.probeConnection = undefined;
    const destroy = () => {
      try {
        conn.destroy();
        conn.stream?.destroy();
      } catch {
        /* already closed */
      }
    };
    if (!graceful) return destroy();
    // A goodbye (COM_QUIT), but never waited for longer than a connect.
    const timer = setTimeout(destroy, this.settings.connectTimeoutMs);
    timer.unref();
    try {
      conn.end(() => clearTimeout(timer));
    } catch {
      destroy();
    }
  }

  private recovered(): void {
    const outage = this.outage;
    if (!outage) return;
    this.outage = undefined;
    this.log?.info({ reason: outage.reason, downMs: Date.now() - outage.since }, 'database available again');
    for (const listener of this.availableListeners) {
      try {
        listener();
      } catch {
        /* a listener's failure is its own */
      }
    }
  }
}
