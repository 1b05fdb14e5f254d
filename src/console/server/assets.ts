/**
 * The console's page and its two built files (scripts/build.mjs writes `dist/console/`: one JS and
 * one CSS file named by content hash, and `manifest.json` naming them). Read once, on the first
 * request for them; served with a strict CSP, and the hashed files cached for good.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConsoleError } from './errors.ts';

/** ConsoleAssets are the built files in memory. */
export interface ConsoleAssets {
  readonly page: string;
  readonly files: ReadonlyMap<string, { readonly body: Buffer; readonly type: string; readonly etag: string }>;
}

/** PAGE_CSP is the console page's policy: its own script and style only, nothing inline, no other origin. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

/** SECURITY_HEADERS go on every console answer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** candidateDirs are where the build may be: beside the bundle's chunks, or dist/ when running from source. */
function candidateDirs(): string[] {
  return [new URL('../console/', import.meta.url), new URL('../../../dist/console/', import.meta.url)].map((url) => fileURLToPath(url));
}

let loaded: ConsoleAssets | undefined;

/** consoleAssets reads the build once; without one it is a 503 saying how to build it. */
export function consoleAssets(prefix: string): ConsoleAssets {
  if (loaded !== undefined) return loaded;
  const dir = candidateDirs().find((each) => existsSync(`${each}manifest.json`));
  if (dir === undefined) throw new ConsoleError(503, 'The console is not built: run `node scripts/build.mjs` (or `npm run build`).');
  const manifest = JSON.parse(readFileSync(`${dir}manifest.json`, 'utf8')) as { js: string; css: string };
  const files = new Map<string, { body: Buffer; type: string; etag: string }>();
  for (const [name, type] of [
    [manifest.js, 'text/javascript; charset=utf-8'],
    [manifest.css, 'text/css; charset=utf-8'],
  ] as const) {
    const body = readFileSync(`${dir}${name}`);
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  const page = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<title>fogbank console</title>',
    // No favicon request (the server has none to give).
    '<link rel="icon" href="data:,">',
    `<link rel="stylesheet" href="${prefix}/assets/${manifest.css}">`,
    `<script type="module" src="${prefix}/assets/${manifest.js}"></script>`,
    '</head>',
    '<body><div id="app"></div></body>',
    '</html>',
    '',
  ].join('\n');
  loaded = { page, files };
  return loaded;
}
