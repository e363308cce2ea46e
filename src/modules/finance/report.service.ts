/**
 * Report runs (docs/finance.md "Reports"). A create stores the run `pending` (in the request's
 * transaction, with its `created` event left out: the contract names only the outcomes). The
 * scheduler's `reports.generate` job, in any process, takes the oldest pending run whose lease
 * is free or expired with a conditional UPDATE (one process wins), writes its CSV page by page
 * as chunks, renewing the lease, and finishes it with its event in one transaction. A process
 * killed mid-run leaves the lease to expire: the next taker deletes the partial chunks and
 * starts again. Files are deleted 7 days after their run finished (`reports.expire`).
 */
import { stringify } from 'csv-stringify/sync';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db } from '../../db/db';
import { compiledSelect } from '../../db/compiled-select';
import { findManyInScope } from '../../db/scoped-reads';
import type { Tx } from '../../db/tx';
import { ApiError } from '../../domain/errors';
import { isId, newId } from '../../domain/ids';
import { isoInstant } from '../../domain/instant';
import { ListParams, Page, parseIsoInstant, parseListQuery, toPage } from '../../domain/listing';
import type { Actor, Scope } from '../../domain/scope';
import type { Done } from '../../ops/operation';
import { applyList, listIndexesOf, listRows } from '../../db/list-query';
import type { EventService } from '../events/event.service';
import { ReportChunk, ReportRun, type ReportParameters, type ReportType } from './report.entity';
import { REPORT_RUN_LIST, type CreateReportRunBody, type ReportRunWire } from './report.schemas';
import { neutralise, REPORT_SOURCES } from './report-sources';

export const FILE_DAYS = 7;
/**
 * Bytes of CSV per stored chunk (one INSERT). MEDIUMTEXT holds far more, but a chunk this size
 * and its copies (the joined string, the statement) stay out of V8's large-object space, which
 * only a full collection frees: 1 MiB chunks grew the process by 130 MB over a 1,000,000-row report.
 */
const CHUNK_BYTES = 64 * 1024;

/** The lease this process holds on a run: its `lease_until`, which every write checks. */
interface Lease {
  until: number;
}

class LeaseLost extends Error {}

export interface ReportInput {
  report_type: ReportType;
  parameters: ReportParameters;
}

export function parseCreateReport(body: CreateReportRunBody): ReportInput {
  const start = parseIsoInstant(body.interval_start, 'interval_start');
  const end = parseIsoInstant(body.interval_end, 'interval_end');
  if (end <= start) throw ApiError.validation('interval_end', 'interval_end must be after interval_start.');
  return {
    report_type: body.report_type,
    parameters: { interval_start: new Date(start).toISOString(), interval_end: new Date(end).toISOString(), currency: body.currency ?? null },
  };
}

export interface ReportServiceDeps {
  db: Db;
  events: EventService;
  log: Logger;
  /** The download URL of a run's file. */
  fileUrl: (id: string) => string;
  /** How long a taker holds a run before another process may take it over. */
  leaseMs: number;
}

export class ReportService {
  constructor(private readonly deps: ReportServiceDeps) {}

  toWire(r: ReportRun): ReportRunWire {
    return {
      object: 'report_run',
      id: r.id,
      report_type: r.reportType,
      environment: r.environment,
      parameters: r.parameters,
      status: r.status,
      result: r.status === 'succeeded' ? { rows: r.rows ?? 0, size: r.size ?? 0, url: r.fileDeleted ? null : this.deps.fileUrl(r.id) } : null,
      error: r.error,
      created_at: isoInstant(r.createdAt),
      updated_at: isoInstant(r.updatedAt),
    };
  }

  async create(tx: Tx, actor: Actor, input: ReportInput): Promise<Done<ReportRunWire>> {
    const now = new Date();
    const run = Object.assign(new ReportRun(), {
      id: newId('reportRun', now.getTime()),
      merchantId: actor.merchantId,
      environment: actor.environment,
      reportType: input.report_type,
      parameters: input.parameters,
      status: 'pending' as const,
      rows: null,
      size: null,
      error: null,
      leaseUntil: null,
      expiresAt: null,
      fileDeleted: 0,
      createdAt: now,
      updatedAt: now,
    });
    await tx.getRepository(ReportRun).insert(run);
    return { outcome: 'created', value: this.toWire(run) };
  }

  parseList(scope: Scope, query: Record<string, unknown>): ListParams {
    return parseListQuery(query, REPORT_RUN_LIST, scope);
  }

  async list(scope: Scope, params: ListParams): Promise<Page<ReportRunWire>> {
    const rows = await this.deps.db.read((em) =>
      listRows(em, applyList(em.createQueryBuilder(ReportRun, 'r'), 'r', scope, params), 'r', params, listIndexesOf('report_runs', false)),
    );
    return toPage(rows, params, REPORT_RUN_LIST.resource, scope, (r) => this.toWire(r));
  }

  private async find(scope: Scope, id: string): Promise<ReportRun> {
    const run = isId('reportRun', id)
      ? await this.deps.db.read((em) => em.findOneBy(ReportRun, { id, merchantId: scope.merchantId, environment: scope.environment }))
      : null;
    if (!run) throw new ApiError('not_found', `No such report run: ${id}.`);
    return run;
  }

  /** Several runs of `scope` by id, in one statement (a DataLoader's batch); unknown ids are left out. */
  async getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, ReportRunWire>> {
    const runs = await findManyInScope(this.deps.db, ReportRun, 'reportRun', scope, ids);
    return new Map([...runs].map(([id, r]) => [id, this.toWire(r)]));
  }

  async get(scope: Scope, id: string): Promise<ReportRunWire> {
    return this.toWire(await this.find(scope, id));
  }

  /** The file's chunks, in order, read one at a time (the caller streams them). */
  async *file(scope: Scope, id: string): AsyncGenerator<string> {
    const run = await this.find(scope, id);
    if (run.status !== 'succeeded' || run.fileDeleted) {
      throw new ApiError(
        'invalid_state',
        run.fileDeleted ? 'This report run’s file was deleted after 7 days.' : `This report run is ${run.status}; only a succeeded run has a file.`,
      );
    }
    for (let seq = 0; ; seq++) {
      const chunk = await this.deps.db.read((em) => em.findOneBy(ReportChunk, { reportRunId: id, seq }));
      if (!chunk) return;
      yield chunk.data;
    }
  }

  /** The run this process is generating (one at a time, beside the scheduler's other jobs). */
  private running: Promise<void> | null = null;

  /** Waits for the run in progress (on shutdown; a run cut short is taken over after its lease). */
  async close(): Promise<void> {
    await this.running;
  }

  /**
   * Scheduler job: takes one due run (if any) and starts generating it in the background, so
   * a long report never holds up the settlements; 1 when it took one.
   */
  async generateDue(now = Date.now()): Promise<number> {
    if (this.running) return 0;
    // Built once, `now` bound: every scheduler pass asks, idle or not.
    const [candidate] = await this.deps.db.read((em) =>
      compiledSelect(em, 'reportRun.due', { now }, (m) =>
        m
          .createQueryBuilder(ReportRun, 'r')
          .where("r.status = 'pending' AND (r.lease_until IS NULL OR r.lease_until < :now)")
          .orderBy('r.created_at', 'ASC')
          .limit(1),
      ),
    );
    const lease = candidate ? await this.take(candidate, now) : null;
    if (!candidate || !lease) return 0;
    this.running = this.generate(candidate, lease).finally(() => {
      this.running = null;
    });
    return 1;
  }

  /** Claims `run` for this process until now + lease: its lease (the token of later writes), null when another process holds or finished it. */
  private async take(run: ReportRun, now: number): Promise<Lease | null> {
    const until = now + this.deps.leaseMs;
    const res = await this.deps.db.tx((tx) =>
      tx
        .createQueryBuilder()
        .update(ReportRun)
        .set({ leaseUntil: new Date(until) })
        .where("id = :id AND status = 'pending' AND (lease_until IS NULL OR lease_until < :now)", { id: run.id, now })
        .execute(),
    );
    return (res.affected ?? 0) === 1 ? { until } : null;
  }

  /**
   * Runs `fn` in a transaction that first renews `lease` (a conditional UPDATE on the lease this
   * process set): a process that lost its lease (stalled past it, and taken over) writes nothing.
   */
  private owned(run: ReportRun, lease: Lease, fn: (tx: Tx) => Promise<void>): Promise<void> {
    return this.deps.db.tx(async (tx) => {
      const until = Math.max(Date.now() + this.deps.leaseMs, lease.until + 1);
      const res = await tx
        .createQueryBuilder()
        .update(ReportRun)
        .set({ leaseUntil: new Date(until) })
        .where("id = :id AND status = 'pending' AND lease_until = :mine", { id: run.id, mine: lease.until })
        .execute();
      if ((res.affected ?? 0) !== 1) throw new LeaseLost();
      await fn(tx);
      tx.afterCommit(() => {
        lease.until = until;
      });
    });
  }

  private async generate(run: ReportRun, lease: Lease): Promise<void> {
    const scope = { merchantId: run.merchantId, environment: run.environment };
    const p = run.parameters;
    const source = REPORT_SOURCES[run.reportType];
    try {
      // A run taken over from a killed process starts again from nothing.
      await this.owned(run, lease, async (tx) => {
        await tx.delete(ReportChunk, { reportRunId: run.id });
      });
      let rows = 0;
      let size = 0;
      let seq = 0;
      // The chunk being filled, as pieces and their byte count (joined once, when written).
      let pieces = [stringify([source.columns])];
      let bytes = Buffer.byteLength(pieces[0], 'utf8');
      // A chunk is written before the next is filled: a chunk written while the next one is
      // filled outlives young collections (its string, statement and packet), which tripled the
      // RSS growth of a 1,000,000-row report for a third more speed.
      const flush = async () => {
        const data = pieces.join('');
        size += bytes;
        pieces = [];
        bytes = 0;
        const at = seq++;
        await this.owned(run, lease, async (tx) => {
          await tx.insert(ReportChunk, { reportRunId: run.id, seq: at, data });
        });
      };
      const query = { scope, start: Date.parse(p.interval_start), end: Date.parse(p.interval_end), currency: p.currency };
      for await (const page of source.pages(this.deps.db, query)) {
        // Requests that arrived meanwhile go first: the page waits for the end of this turn's I/O.
        await setImmediatePromise();
        const piece = stringify(page.map((r) => r.map(neutralise)));
        pieces.push(piece);
        bytes += Buffer.byteLength(piece, 'utf8');
        rows += page.length;
        if (bytes >= CHUNK_BYTES) await flush();
      }
      if (bytes > 0 || seq === 0) await flush();
      await this.finish(run, lease, { status: 'succeeded', rows, size, error: null });
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.deps.log.warn({ reportRun: run.id }, 'report run taken over by another process');
        return;
      }
      this.deps.log.error({ err, reportRun: run.id }, 'report run failed');
      await this.finish(run, lease, { status: 'failed', rows: null, size: null, error: 'The report could not be generated; request it again.' }).catch(
        (e: unknown) => this.deps.log.error({ err: e, reportRun: run.id }, 'report run failure not recorded'),
      );
    }
  }

  /** The outcome and its event, in one transaction; only if this process still holds a pending run. */
  private async finish(run: ReportRun, lease: Lease, outcome: Pick<ReportRun, 'status' | 'rows' | 'size' | 'error'>): Promise<void> {
    await this.owned(run, lease, async (tx) => {
      const now = new Date();
      const expiresAt = new Date(now.getTime() + FILE_DAYS * 86_400_000);
      await tx.update(ReportRun, { id: run.id }, { ...outcome, leaseUntil: null, expiresAt, updatedAt: now });
      Object.assign(run, outcome, { leaseUntil: null, expiresAt, updatedAt: now });
      await this.deps.events.record(tx, { merchantId: run.merchantId, environment: run.environment }, outcome.status, this.toWire(run), null, now);
    });
  }

  /** Scheduler job: deletes the files of runs finished more than 7 days ago. */
  async expireFiles(now = Date.now()): Promise<number> {
    const due = await this.deps.db.read((em) =>
      em.createQueryBuilder(ReportRun, 'r').where('r.expires_at < :now AND r.file_deleted = 0', { now }).limit(100).getMany(),
    );
    for (const run of due) {
      await this.deps.db.tx(async (tx) => {
        await tx.delete(ReportChunk, { reportRunId: run.id });
        await tx.update(ReportRun, { id: run.id }, { fileDeleted: 1 });
      });
    }
    return due.length;
  }
}
