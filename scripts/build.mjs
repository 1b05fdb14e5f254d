// Builds the runtime entry points into ES modules under dist/ (options: scripts/bundle-options.mjs).
//
// Why a bundle rather than tsc's one-file-per-module output: measured with bench/startup.ts on
// this project's 2-core machine, `fogbank start` from tsc output took ~400–530 ms to listen and
// sat at ~88 MiB idle; the same code bundled listens in ~180–190 ms at ~69 MiB. Most of the
// difference is the ESM loader resolving and instantiating hundreds of small dependency modules
// (Fastify's and TypeBox's). Type checking stays with tsc (`npm run typecheck`, run by `npm test`).
//
// Earlier builds' chunks stay in dist/chunks: a running fogbank imports a family's chunk on that
// family's first request, so removing them would break a server started before this build (the
// test suite rebuilds dist/ while other tests run it, and `npm start` builds beside a running one).
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { BUNDLE_OPTIONS } from './bundle-options.mjs';
import { buildConsole } from './console-build.mjs';
import { staleChunksIgnore } from './package-chunks.mjs';
import { packageTypes } from './package-types.mjs';
import { writeIfChanged } from './write-unchanged.mjs';

const { metafile, outputFiles } = await build({ ...BUNDLE_OPTIONS, metafile: true, write: false });
for (const file of outputFiles) writeIfChanged(file.path, file.contents);
// The package leaves out earlier builds' chunks, which stay on disk for servers still running.
writeIfChanged('dist/chunks/.npmignore', staleChunksIgnore(metafile, 'dist/chunks'));
// The web console's browser files (dist/console/), served by the running server on first use.
await buildConsole();
// The declarations of the package's exports, when tsc has written them (`npm run build` does).
if (existsSync('dist/declarations/fogbank.d.ts')) packageTypes();
