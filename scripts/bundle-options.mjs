// The esbuild options of the `fogbank` and `protoc-gen-fogbank` executables (scripts/build.mjs),
// shared with the test that keeps heavy modules out of what `fogbank start` loads
// (src/cli/startup-graph.test.ts).

/** BUNDLE_OPTIONS bundle the runtime entry points into ES modules under dist/. */
export const BUNDLE_OPTIONS = {
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
  // compiling one 2.7 MB module was ~180 ms of a ~530 ms start on this machine). Every family
  // loads its heavy parts that way (docs/architecture.md, "Start-up").
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
};
