/**
 * Runs due work (provider settlements, expiries, key purges) on an interval. Every job
 * is safe to run in several processes at once: each finds work in the database and
 * claims it with a conditional update or row lock, so nothing is done twice.
 *
 * While the database is out a pass stops at the first job that finds it so (Db logs the
 * outage once; the jobs log nothing more) and the next passes try again, so work resumes
 * by itself when the database answers.
 */
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../db/db';

export interface Job {
  name: string;
  /** Does one pass; returns how many items it handled. */
  run(): Promise<number>;
  /** Minimum time between passes; defaults to the scheduler's interval. */
  everyMs?: number;
}

export class Scheduler {
  private timer?: NodeJS.Timeout;
  private running = false;
  private readonly lastRun = new Map<string, number>();

  constructor(
    private readonly jobs: Job[],
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    while (this.running) await new Promise((r) => setTimeout(r, 10));
  }

  /** One pass over the due jobs; never overlaps itself. */
  async tick(now = Date.now()): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const job of this.jobs) {
        const every = job.everyMs ?? this.intervalMs;
        if (now - (this.lastRun.get(job.name) ?? 0) < every) continue;
        this.lastRun.set(job.name, now);
        try {
          const n = await job.run();
          if (n > 0) this.log.debug({ job: job.name, handled: n }, 'job pass');
        } catch (err) {
          if (isDatabaseUnavailable(err)) {
            // Due again at once: the first pass after the outage runs it.
            this.lastRun.delete(job.name);
            this.log.debug({ job: job.name }, 'job skipped: database unavailable');
            break;
          }
          this.log.error({ err, job: job.name }, 'job failed');
        }
      }
    } finally {
      this.running = false;
    }
  }
}
