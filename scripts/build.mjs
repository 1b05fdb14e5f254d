// Builds the runtime entry points into ES modules under dist/ (options: scripts/bundle-options.mjs).
//
// Why a bundle rather than tsc's one-file-per-module output: measured with bench/startup.ts on
// this project's 2-core machine, `fogbank start` from tsc output took ~400–530 ms to listen and
// sat at ~88 MiB idle; the same code bundled listens in ~180–190 ms at ~69 MiB. Most of the
// difference is the ESM loader resolving and instantiating hundreds of small dependency modules
// (Fastify's and TypeBox's). Type checking stays with tsc (`npm run typecheck`, run by `npm test`).
//
// Chunk names carry a content hash, so every change of the code makes new ones: the previous
// build's chunks are removed first, or dist/chunks would keep every build's.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from './bundle-options.mjs';

rmSync(join(BUNDLE_OPTIONS.outdir, 'chunks'), { recursive: true, force: true });
await build(BUNDLE_OPTIONS);
