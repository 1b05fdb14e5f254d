// Builds the runtime entry points into single ES module files under dist/.
//
// Why a bundle rather than tsc's one-file-per-module output: measured with bench/startup.ts on
// this project's 2-core machine, `fogbank start` from tsc output took ~400–530 ms to listen and
// sat at ~88 MiB idle; the same code bundled listens in ~180–190 ms at ~69 MiB. Most of the
// difference is the ESM loader resolving and instantiating hundreds of small dependency modules
// (Fastify's and TypeBox's). Type checking stays with tsc (`npm run typecheck`, run by `npm test`).
import { build } from 'esbuild';

await build({
  entryPoints: {
    fogbank: 'src/cli/main.ts',
    'protoc-gen-fogbank': 'src/cli/protoc-gen-fogbank.ts',
  },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  // Dynamic imports become separate chunks, parsed only when first used (start-up time: V8
  // compiling one 2.7 MB module was ~180 ms of a ~530 ms start on this machine).
  splitting: true,
  // Smaller source parses faster; names are kept for errors and stack traces.
  minify: true,
  keepNames: true,
  chunkNames: 'chunks/[name]-[hash]',
  target: 'node20',
  sourcemap: true,
  // The native SQLite binding loads its .node file relative to its own package.
  external: ['better-sqlite3'],
  // Bundled CommonJS dependencies call require(); give the ES module one.
  banner: { js: "import { createRequire as __fogbankCreateRequire } from 'node:module'; const require = __fogbankCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
