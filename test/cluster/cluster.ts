/**
 * What the cluster suites share: the cluster's URLs (GALERA_URLS, from `npm run test:cluster`),
 * a fresh database on it seen through each node, and the nodes' conflict counters.
 */
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import type { TestDatabase } from '../helpers/server';
import { describeIf } from '../helpers/skip';
import { connectMysql } from '../helpers/mysql';

export const URLS = (process.env.GALERA_URLS ?? '')
  .split(',')
  .map((u) => u.trim())
  .filter(Boolean);

export const cluster = describeIf(
  URLS.length === 3,
  'needs a three-node Galera cluster: run `npm run test:cluster` (or `npm run cluster:up` and set GALERA_URLS to the three URLs it prints)',
);

export interface ClusterDatabase {
  /** The database through node 1, 2, 3. */
  nodes: TestDatabase[];
  /** One connection per node, in the database, with causal reads. */
  admin: mysql.Connection[];
  drop(): Promise<void>;
}

/** One fresh database on the cluster, seen through each node's URL; created on node 1, dropped at the end. */
export async function clusterDatabase(): Promise<ClusterDatabase> {
  const first = new URL(URLS[0]);
  const name = `${first.pathname.replace(/^\//, '') || 'pgw'}_g${randomBytes(5).toString('hex')}`;
  const admin = await Promise.all(URLS.map((u) => connectMysql(new URL(u))));
  await admin[0].query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  // Reads see what the cluster committed before them (causal reads), on every node.
  for (const c of admin) {
    await c.query('SET SESSION wsrep_sync_wait = 1');
    await c.query('SELECT 1'); // waits until this node has the new database too
    await c.query(`USE \`${name}\``);
  }
  const nodes = URLS.map((u): TestDatabase => {
    const url = new URL(u);
    url.pathname = `/${name}`;
    return { kind: 'mysql', env: { DATABASE_URL: url.toString() }, drop: async () => undefined };
  });
  return {
    nodes,
    admin,
    async drop() {
      await admin[0].query(`DROP DATABASE IF EXISTS \`${name}\``);
      await Promise.all(admin.map((c) => c.end().catch(() => undefined)));
    },
  };
}

/** Certification failures + brute-force aborts on every node so far (each one a transaction the gateway had to rerun). */
export async function conflicts(admin: mysql.Connection[]): Promise<number> {
  let n = 0;
  for (const c of admin) {
    const [rows] = await c.query<any[]>("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')");
    for (const r of rows) n += Number(r.Value);
  }
  return n;
}

/** A new admin connection to node `i` (after the node was killed and came back), in place of the dead one. */
export async function reconnect(db: ClusterDatabase, i: number): Promise<mysql.Connection> {
  const [, dbName] = /\/([^/]+)$/.exec(new URL(db.nodes[i].env.DATABASE_URL).pathname) ?? [];
  const c = await connectMysql(new URL(URLS[i]));
  await c.query('SET SESSION wsrep_sync_wait = 1');
  await c.query(`USE \`${dbName}\``);
  db.admin[i] = c;
  return c;
}
