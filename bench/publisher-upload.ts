import { createReadStream, mkdtempSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleItems, writeZip, zeros } from '../src/services/publisher/artifact-builder.fixture.ts';
import { startPostgres } from '../src/testing/postgres-server.ts';
import { ensureBuilt, rssMb, startProcess, type Started } from './lib/processes.ts';
import { type Bench, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

/**
 * Bundle upload throughput: a bundle with a large stored payload entry (1 GiB by default) is
 * uploaded to fogbank with uploadType=resumable in 64 MiB chunks (each chunk appended to the
 * store's upload bytes as it arrives, hashed on the way; at the last one the bundle is inspected
 * and kept as an artifact), and the same requests are sent to a bare node:http sink that appends
 * every chunk's body to a file (publisher-upload.sink.mjs), interleaved round by round in the same
 * run. Goal: ≥ 0.8× the sink. uploadType=media (one request, streamed to a file while hashed) is
 * shown for information against the same sink, and fogbank's RSS growth is reported.
 * Size: PUBLISHER_BENCH_MIB (default 1024; 256 with --quick). PUBLISHER_BENCH_STORE=postgres
 * runs fogbank on a temporary PostgreSQL (resumable bytes in chunk rows) instead of SQLite.
 */
const PACKAGE = 'com.example.bench';
const CHUNK = 64 * 1024 * 1024;
const auth = { authorization: 'Bearer bench' };

/** put sends one request with the byte range [start, end) of `file` as its body and resolves with the status and Location. */
function put(
  url: URL,
  method: string,
  headers: Record<string, string>,
  file: string,
  start: number,
  end: number,
): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers: { ...auth, ...headers, 'content-length': String(end - start) } }, (response) => {
      response.resume();
      response.once('end', () => resolve({ status: response.statusCode ?? 0, location: response.headers.location }));
    });
    outgoing.once('error', reject);
    if (end === start) outgoing.end();
    else createReadStream(file, { start, end: end - 1, highWaterMark: 1024 * 1024 }).pipe(outgoing);
  });
}

/** resumable uploads `file` to `server`: initiate, then CHUNK-sized PUTs streamed from disk; returns the milliseconds taken. */
async function resumable(server: Started, file: string, size: number): Promise<number> {
  const began = performance.now();
  const target = new URL(`/upload/androidpublisher/v3/applications/internalappsharing/${PACKAGE}/artifacts/bundle?uploadType=resumable`, server.url);
  const initiated = await put(target, 'POST', { 'x-upload-content-type': 'application/octet-stream', 'x-upload-content-length': String(size) }, file, 0, 0);
  if (initiated.status !== 200 || initiated.location === undefined) throw new Error(`initiation answered ${initiated.status}`);
  const location = new URL(initiated.location);
  for (let start = 0; start < size; start += CHUNK) {
    const end = Math.min(start + CHUNK, size);
    const { status } = await put(location, 'PUT', { 'content-range': `bytes ${start}-${end - 1}/${size}` }, file, start, end);
    if (status !== (end === size ? 200 : 308)) throw new Error(`chunk at ${start} answered ${status}`);
  }
  return performance.now() - began;
}

/** media uploads `file` in one uploadType=media request; returns the milliseconds taken. */
async function media(server: Started, file: string, size: number): Promise<number> {
  const began = performance.now();
  const target = new URL(`/upload/androidpublisher/v3/applications/internalappsharing/${PACKAGE}/artifacts/bundle?uploadType=media`, server.url);
  const { status } = await put(target, 'POST', { 'content-type': 'application/octet-stream' }, file, 0, size);
  if (status !== 200) throw new Error(`upload answered ${status}`);
  return performance.now() - began;
}

/** bench measures resumable (goal) and media uploads of a large bundle against the bare sink. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const mib = Number(process.env['PUBLISHER_BENCH_MIB'] ?? (quick ? 256 : 1024));
  const work = mkdtempSync(join(tmpdir(), 'fogbank-bench-publisher-'));
  const postgres = process.env['PUBLISHER_BENCH_STORE'] === 'postgres' ? await startPostgres() : undefined;
  try {
    const bundle = join(work, 'bench.aab');
    const payload = mib * 1024 * 1024;
    await writeZip(bundle, [
      ...bundleItems({ packageName: PACKAGE, versionCode: 1 }),
      { name: 'base/assets/payload.bin', stream: () => zeros(payload), size: payload },
    ]);
    const size = statSync(bundle).size;
    const store = postgres === undefined ? [] : ['--store', await postgres.createDatabase('bench_publisher')];
    const fogbank = await startProcess([
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
    const sinkDir = join(work, 'sink');
    const sink = await startProcess([join(import.meta.dirname, 'publisher-upload.sink.mjs'), sinkDir]);
    try {
      const rssBefore = rssMb(fogbank.child.pid!);
      let rssPeak = rssBefore;
      const watch = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(fogbank.child.pid!))), 100);
      const mibps = (ms: number): number => size / 1024 / 1024 / (ms / 1000);
      const toSink = async (): Promise<number> => {
        rmSync(sinkDir, { recursive: true, force: true });
        mkdirSync(sinkDir);
        return mibps(await resumable(sink, bundle, size));
      };
      const [sinkRates, resumableRates, mediaRates] = await interleaved(rounds, [
        { label: 'node:http sink', measure: toSink },
        { label: 'fogbank resumable', measure: async () => mibps(await resumable(fogbank, bundle, size)) },
        { label: 'fogbank media', measure: async () => mibps(await media(fogbank, bundle, size)) },
      ]);
      clearInterval(watch);
      const baseline = { label: 'node:http sink → file', samples: sinkRates };
      const sizeText = `${(size / 1024 / 1024).toFixed(0)} MiB bundle, ${postgres === undefined ? 'SQLite' : 'PostgreSQL'} store`;
      return [
        metricOf({
          metric: `publisher resumable upload, 64 MiB chunks (${sizeText})`,
          unit: 'MiB/s',
          fogbank: resumableRates,
          baseline,
          goal: ratioAtLeast(0.8, 'sink'),
          note: `fogbank RSS ${rssBefore.toFixed(0)} MiB before, ${rssPeak.toFixed(0)} MiB peak (+${(rssPeak - rssBefore).toFixed(0)} MiB)`,
        }),
        metricOf({ metric: `publisher media upload, one request (${sizeText})`, unit: 'MiB/s', fogbank: mediaRates, baseline }),
      ];
    } finally {
      await fogbank.stop();
      await sink.stop();
    }
  } finally {
    await postgres?.stop();
    rmSync(work, { recursive: true, force: true });
  }
};

runAlone(import.meta, bench);
