// Builds the web console's browser code (src/console/client/) into dist/console/: one JS and one
// CSS file named by content hash (so they are cached for good) and manifest.json naming them,
// which the server reads (src/console/server/assets.ts). No CDN: everything the page loads is here.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** CONSOLE_BUDGET_BYTES is the console's size budget: JS + CSS, gzipped. */
export const CONSOLE_BUDGET_BYTES = 150 * 1024;

/** buildConsole writes dist/console/ and returns the gzipped size of JS + CSS. */
export async function buildConsole({ outdir = 'dist/console', quiet = false } = {}) {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: { main: 'src/console/client/main.tsx' },
    outdir,
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    write: true,
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const js = outputs.find((name) => name.endsWith('.js'));
  const css = outputs.find((name) => name.endsWith('.css'));
  if (js === undefined || css === undefined) throw new Error(`the console build made ${outputs.join(', ')}: expected one .js and one .css`);
  // Earlier builds' files go: the page names the new ones, and a running server read its own at first use.
  // Only hashed assets: the TypeScript build writes the console's server modules into the same folder.
  for (const name of readdirSync(outdir)) if (/^main-[A-Z0-9]+\.(js|css)$/.test(name) && name !== js && name !== css) rmSync(`${outdir}/${name}`);
  writeFileSync(`${outdir}/manifest.json`, `${JSON.stringify({ js, css })}\n`);
  const { readFileSync } = await import('node:fs');
  const gzipped = gzipSync(readFileSync(`${outdir}/${js}`)).length + gzipSync(readFileSync(`${outdir}/${css}`)).length;
  if (!quiet) console.log(`console: ${js} + ${css}: ${(gzipped / 1024).toFixed(1)} KiB gzipped (budget ${CONSOLE_BUDGET_BYTES / 1024} KiB)`);
  if (gzipped > CONSOLE_BUDGET_BYTES) throw new Error(`the console is ${gzipped} bytes gzipped, over its budget of ${CONSOLE_BUDGET_BYTES}`);
  return gzipped;
}
