#!/usr/bin/env node
// protoc-gen-fogbank: runs the bundled plugin from dist/, or the TypeScript source through tsx
// when the package has not been built (a git checkout without `npm run build`).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/protoc-gen-fogbank.mjs', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/protoc-gen-fogbank.ts', import.meta.url).href);
}
