import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { bundleItems, writeZip, zeros } from '../src/services/publisher/artifact-builder.fixture.ts';
import { startPostgres } from '../src/store/postgres-server.fixture.ts';
import { ensureBuilt, median, rssMb, startProcess } from './lib/processes.ts';

/**
 * Bundle upload throughput: a bundle with a large stored payload entry is uploaded to fogbank
 * (uploadType=media: streamed to the data directory while hashed, then inspected and kept as an
 * artifact; and uploadType=resumable in 64 MiB chunks: each committed to the store's upload
 * bytes, then streamed to a spool while hashed at completion), and the same file is copied over
 * a raw loopback TCP socket into a file — the floor any HTTP upload sits on — in the same run.
 * Prints MiB/s, the ratios, and fogbank's RSS growth.
 * Size: PUBLISHER_BENCH_MIB (default 1024); rounds: PUBLISHER_BENCH_ROUNDS (default 3).
 * PUBLISHER_BENCH_STORE=postgres runs fogbank on a temporary PostgreSQL (resumable bytes in
 * chunk rows) instead of the default SQLite store.
 */
const main = ensureBuilt();
const MIB = Number(process.env['PUBLISHER_BENCH_MIB'] ?? '1024');
const ROUNDS = Number(process.env['PUBLISHER_BENCH_ROUNDS'] ?? '3');
const PACKAGE = 'com.example.bench';
const work = mkdtempSync(join(tmpdir(), 'fogbank-bench-publisher-'));

async function rawSocketCopy(file: string, target: string): Promise<number> {
  const server = createServer((socket) => {
    void pipeline(socket, createWriteStream(target)).then(() => server.close());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const began = performance.now();
  const closed = new Promise((resolve) => server.once('close', resolve));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await pipeline(createReadStream(file), socket);
  await closed;
  return performance.now() - began;
}

async function fogbankUpload(url: string, file: string, size: number): Promise<number> {
  const began = performance.now();
  const target = new URL(`/upload/androidpublisher/v3/applications/internalappsharing/${PACKAGE}/artifacts/bundle?uploadType=media`, url);
  const status = await new Promise<number>((resolve, reject) => {
    const outgoing = request(
      target,
      { method: 'POST', headers: { authorization: 'Bearer bench', 'content-type': 'application/octet-stream', 'content-length': String(size) } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.once('error', reject);
    createReadStream(file).pipe(outgoing);
  });
  if (status !== 200) throw new Error(`upload answered ${status}`);
  return performance.now() - began;
}

/** fogbankResumable uploads `file` with uploadType=resumable: initiate, then CHUNK-sized PUTs streamed from disk. */
async function fogbankResumable(url: string, file: string, size: number): Promise<number> {
  const CHUNK = 64 * 1024 * 1024;
  const began = performance.now();
  const initiated = await fetch(new URL(`/upload/androidpublisher/v3/applications/internalappsharing/${PACKAGE}/artifacts/bundle?uploadType=resumable`, url), {
    method: 'POST',
    headers: { authorization: 'Bearer bench', 'x-upload-content-type': 'application/octet-stream', 'x-upload-content-length': String(size) },
  });
  if (initiated.status !== 200) throw new Error(`initiation answered ${initiated.status}`);
  const location = new URL(initiated.headers.get('location')!);
  for (let start = 0; start < size; start += CHUNK) {
    const end = Math.min(start + CHUNK, size);
    const status = await new Promise<number>((resolve, reject) => {
      const headers = { authorization: 'Bearer bench', 'content-length': String(end - start), 'content-range': `bytes ${start}-${end - 1}/${size}` };
      const outgoing = request(location, { method: 'PUT', headers }, (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      });
      outgoing.once('error', reject);
      createReadStream(file, { start, end: end - 1 }).pipe(outgoing);
    });
    if (status !== (end === size ? 200 : 308)) throw new Error(`chunk at ${start} answered ${status}`);
  }
  return performance.now() - began;
}

try {
  const bundle = join(work, 'bench.aab');
  const payload = MIB * 1024 * 1024;
  await writeZip(bundle, [
    ...bundleItems({ packageName: PACKAGE, versionCode: 1 }),
    { name: 'base/assets/payload.bin', stream: () => zeros(payload), size: payload },
  ]);
  const size = statSync(bundle).size;
  const postgres = process.env['PUBLISHER_BENCH_STORE'] === 'postgres' ? await startPostgres() : undefined;
  const store = postgres === undefined ? [] : ['--store', await postgres.createDatabase('bench_publisher')];
  const server = await startProcess([
    main,
    'start',
    '--port',
    '0',
    '--data-dir',
    join(work, 'data'),
    ...store,
    '--admin-token',
    'bench',
    '--log-level',
    'error',
  ]);
  console.log(`store: ${postgres === undefined ? 'sqlite' : 'postgres'}`);
  try {
    const rssBefore = rssMb(server.child.pid!);
    let rssPeak = rssBefore;
    const raw: number[] = [];
    const fogbank: number[] = [];
    const resumable: number[] = [];
    const watch = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(server.child.pid!))), 100);
    for (let round = 0; round < ROUNDS; round++) {
      raw.push(await rawSocketCopy(bundle, join(work, `raw-${round}`)));
      rmSync(join(work, `raw-${round}`));
      fogbank.push(await fogbankUpload(server.url, bundle, size));
      resumable.push(await fogbankResumable(server.url, bundle, size));
      rssPeak = Math.max(rssPeak, rssMb(server.child.pid!));
    }
    clearInterval(watch);
    const mibps = (ms: number) => size / 1024 / 1024 / (ms / 1000);
    const rawRate = mibps(median(raw));
    const fogbankRate = mibps(median(fogbank));
    console.log(`bundle ${(size / 1024 / 1024).toFixed(1)} MiB, ${ROUNDS} rounds (median)`);
    console.log(`raw loopback socket copy → file : ${rawRate.toFixed(0)} MiB/s`);
    console.log(`fogbank uploadbundle (media)    : ${fogbankRate.toFixed(0)} MiB/s  (receive + sha256 + inspect + keep)`);
    const resumableRate = mibps(median(resumable));
    console.log(
      `fogbank uploadbundle (resumable): ${resumableRate.toFixed(0)} MiB/s  (64 MiB chunks committed to the store + spool + sha256 + inspect + keep)`,
    );
    console.log(`ratio fogbank media / raw       : ${(fogbankRate / rawRate).toFixed(2)}×`);
    console.log(`ratio fogbank resumable / raw   : ${(resumableRate / rawRate).toFixed(2)}×`);
    console.log(
      `fogbank RSS                     : ${rssBefore.toFixed(0)} MiB before, ${rssPeak.toFixed(0)} MiB peak (+${(rssPeak - rssBefore).toFixed(0)} MiB)`,
    );
  } finally {
    await server.stop();
    await postgres?.stop();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
