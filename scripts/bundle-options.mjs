// The esbuild options of the `fogbank` and `protoc-gen-fogbank` executables (scripts/build.mjs),
// shared with the test that keeps heavy modules out of what `fogbank start` loads
// (src/cli/startup-graph.test.ts).

/** BUNDLE_OPTIONS bundle the runtime entry points into ES modules under dist/. */
export const BUNDLE_OPTIONS = {
  entryPoints: {
    fogbank: 'src/cli/main.ts',
    'protoc-gen-fogbank': 'src/cli/protoc-gen-fogbank.ts',
    // The YAML decoding thread: core/yaml-worker-pool.ts (a chunk) starts it from beside itself,
    // so it is built into chunks/ under a name without a hash.
    'chunks/yaml-worker': 'src/core/yaml-worker.ts',
    // The package's exports (package.json): the library door and the plugin toolkit, bundled
    // like the executables (sharing their chunks), typed by dist/types/ (scripts/package-types.mjs).
    index: 'src/fogbank.ts',
    'plugin/runtime': 'src/plugin/runtime/index.ts',
    'plugin/host': 'src/plugin/host/index.ts',
    'plugin/generators': 'src/plugin/generators/index.ts',
    // The WAF engine's thread, started the same way by compute's waf/waf-pool.ts.
    'chunks/waf-worker': 'src/services/compute/security-policies/waf/waf-worker.ts',
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
  // Smaller source parses faster. Identifiers keep their source names, so stack traces and
  // errors read as the code does, without esbuild's keepNames: that option re-attaches every
  // renamed function's name with Object.defineProperty as the function is created, per request
  // for closures, and measured on GET ClusterRole (bench/cluster-get-create.ts) it cost a third
  // of the throughput (16.7k → 25.1k req/s without it); start-up was no slower.
  minifyWhitespace: true,
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  target: 'node20',
  sourcemap: true,
  // The native SQLite binding loads its .node file relative to its own package. Fastify's schema
  // compilers (Ajv, fast-json-stringify) are required from node_modules if a route ever declares
  // a schema, which none does (src/core/schema-compilers.ts): bundled, they were ~300 KB parsed at
  // every start.
  // koffi (the WAF engine's FFI) loads its native binary from its own package, as better-sqlite3 does.
  external: ['better-sqlite3', 'koffi', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
  // Bundled CommonJS dependencies call require(); give the ES module one.
  banner: { js: "import { createRequire as __fogbankCreateRequire } from 'node:module'; const require = __fogbankCreateRequire(import.meta.url);" },
  logLevel: 'warning',
};
