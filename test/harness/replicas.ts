import { join } from 'node:path';
import { startPostgres, type PostgresServer } from '../../src/testing/postgres-server.ts';
import { startFogbankProcess, type FogbankProcess } from './process.ts';
import { removeTempDir, tempDir } from '../../src/testing/temp.ts';

/**
 * ReplicaPair is two `fogbank start --store postgres://…` processes, A and B, on one database
 * of a PostgreSQL server of their own. Each has its own data directory under `work`, so the
 * database is the only thing they share.
 */
export interface ReplicaPair {
  readonly a: FogbankProcess;
  readonly b: FogbankProcess;
  /** A directory for the test's own files, removed by stop. */
  readonly work: string;
  /** stop kills both replicas, stops the server and removes the directories. */
  stop(): Promise<void>;
}

/** startReplicaPair starts PostgreSQL, creates `database` and starts A then B on it with `token` as the admin token. */
export async function startReplicaPair(database: string, token: string): Promise<ReplicaPair> {
  const work = tempDir('replicas');
  const started: FogbankProcess[] = [];
  let server: PostgresServer | undefined;
  const stop = async (): Promise<void> => {
    for (const proc of started) proc.child.kill('SIGKILL');
    await Promise.all(started.map((proc) => proc.exited));
    await server?.stop();
    removeTempDir(work);
  };
  try {
    server = await startPostgres();
    const url = await server.createDatabase(database);
    for (const name of ['a', 'b']) {
      started.push(await startFogbankProcess(['--port', '0', '--store', url, '--data-dir', join(work, name), '--admin-token', token, '--log-level', 'error']));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { a: started[0]!, b: started[1]!, work, stop };
}
