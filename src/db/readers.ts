/**
 * Servers that take plain reads (DATABASE_READ_URLS), beside the writer that takes every unit
 * of work: on a Galera cluster with one writer node, the other nodes
 * (docs/decisions/0058-galera-one-writer.md). Each reader has its own pool, limits and outage
 * probe; reads go round robin to the readers not known to be out. Every connection reads
 * causally on Galera (src/db/mysql-session.ts), so a reader answers what the writer committed
 * before the read began.
 */
import type { DataSource, QueryRunner } from 'typeorm';
import type { DbSettings } from '../config';
import { watchPool, within } from './deadline';
import { DatabaseUnavailableError } from './errors';
import { OutageProbe, type DbLog } from './outage';
import { Units } from './unit';

interface Reader {
  ds: DataSource;
  probe: OutageProbe;
  units: Units;
}

export class Readers {
  private readonly all: Reader[];
  private next = 0;
  /** Reads that a reader could not serve (unavailable), left for the writer. */
  fallbacks = 0;

  constructor(
    sources: DataSource[],
    private readonly settings: DbSettings,
    log?: DbLog,
  ) {
    this.all = sources.map((ds) => {
      watchPool(ds, new Set());
      const probe = new OutageProbe(ds, settings, log);
      return { ds, probe, units: new Units(ds, settings, probe) };
    });
  }

  /**
   * `body` on the next reader not known to be out, as `{ value }`; undefined when there is none,
   * or when the one tried turned out unavailable (the caller then reads on the writer).
   */
  async run<T>(deadline: number, body: (runner: QueryRunner) => Promise<T>): Promise<{ value: T } | undefined> {
    const reader = this.pick();
    if (!reader) return undefined;
    try {
      return { value: await reader.units.run(deadline, body) };
    } catch (err) {
      if (!(err instanceof DatabaseUnavailableError)) throw err;
      this.fallbacks++;
      return undefined;
    }
  }

  /** Closes every reader's pool, bounded like the writer's (one that does not answer is left). */
  async close(): Promise<void> {
    await Promise.all(
      this.all.map(async (reader) => {
        const out = reader.probe.isOut;
        reader.units.close();
        reader.probe.close();
        if (!reader.ds.isInitialized) return;
        const closing = reader.ds.destroy();
        closing.catch(() => undefined);
        await within(closing, out ? 100 : this.settings.connectTimeoutMs, () => new Error('pool close timed out')).catch(() => undefined);
      }),
    );
  }

  private pick(): Reader | undefined {
    for (let i = 0; i < this.all.length; i++) {
      const reader = this.all[this.next++ % this.all.length];
      if (reader.probe.available) return reader;
    }
    return undefined;
  }
}
