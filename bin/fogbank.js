#!/usr/bin/env node
// fogbank: runs the bundled CLI from dist/ (built by `npm ci` through the prepare script), or
// the TypeScript source through tsx when the package has not been built.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/fogbank.mjs', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
