// durability-writer.fixture.ts is the child process of sqlite-durability.test.ts: it writes in a
// loop and prints each key only after `transact` resolved, i.e. once the write is acknowledged.
// Usage: node --import tsx durability-writer.fixture.ts <database file> <max writes> [change retention]
// (a small retention compacts the feed every few commits, moving values into the records as it goes)
import { SqliteStore } from './sqlite-store.ts';

const [file, max = '2000', retention] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: durability-writer.fixture.ts <database file> [max writes] [change retention]');
const store = SqliteStore.open(file, retention === undefined ? {} : { changeRetention: Number(retention), compactionBatch: 10 });
for (let i = 0; i < Number(max); i++) {
  const key = `item-${String(i).padStart(6, '0')}`;
  // Two writes per transaction, so the reopened database also shows whether commits are atomic.
  await store.transact(async (tx) => {
    await tx.put('durability', key, { i });
    await tx.put('durability-last', 'last', { i });
  });
  // Pipes are synchronous on POSIX, so the line is out before the next write starts.
  process.stdout.write(`${key}\n`);
}
await store.close();
