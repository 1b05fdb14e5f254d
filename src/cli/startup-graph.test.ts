// What `fogbank start` loads before it listens is the bundle's entry chunk and the chunks it
// imports statically; everything a family reaches through a dynamic import() is read on first
// use. This test bundles the CLI as scripts/build.mjs does and walks that static graph, so a
// static import that drags a heavy dependency back into start-up fails here, not silently in
// `npm run bench:startup`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../scripts/bundle-options.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** HEAVY are modules that must load on first use, with the family (or store) that uses them. */
const HEAVY: readonly { readonly input: RegExp; readonly why: string }[] = [
  { input: /node_modules\/iconv-lite\//, why: "mail's MIME stack (charset tables)" },
  { input: /node_modules\/libmime\//, why: "mail's MIME stack" },
  { input: /node_modules\/encoding-japanese\//, why: "mail's MIME stack" },
  { input: /node_modules\/@zone-eu\/mailsplit\//, why: 'MIME splitting (mail, multipart uploads)' },
  { input: /node_modules\/nodemailer\//, why: "mail's address parser and SMTP relay" },
  { input: /node_modules\/@bufbuild\/cel\//, why: "compute's rules language" },
  { input: /node_modules\/@sinclair\/typebox\//, why: "compute's request schemas" },
  { input: /node_modules\/re2js\//, why: "compute's list filters and rule regexes" },
  { input: /node_modules\/pg(-[a-z]+)?\//, why: 'the PostgreSQL store' },
  { input: /node_modules\/(yauzl|pkijs|asn1js|@bufbuild\/protobuf)\//, why: "publisher's upload inspection" },
  { input: /node_modules\/fast-json-patch\//, why: "the cluster's patching" },
  { input: /node_modules\/yaml\//, why: "the cluster's YAML bodies" },
  { input: /src\/core\/yaml-worker-pool\.ts$/, why: 'the threads that decode large YAML bodies, started by the first one' },
  { input: /node_modules\/(fastify|find-my-way|avvio|pino)\//, why: "the HTTP framework, loaded with the first family's app (core/family-app.ts)" },
  { input: /src\/core\/family-app\.ts$/, why: "a family's app, built by the family's first request" },
  { input: /src\/services\/cluster\/runtime\.ts$/, why: "the cluster's working parts" },
  { input: /src\/services\/cluster\/apimachinery\/registry\.ts$/, why: "the cluster's generic registry" },
  { input: /src\/services\/compute\/security-policies\/validate-rule\.ts$/, why: "compute's rule validation" },
  { input: /src\/services\/mail\/outgoing\.ts$/, why: "mail's composing" },
];

/** startupInputs lists the source files in the entry's output and every output it imports statically. */
function startupInputs(metafile: Metafile, entry: string): Set<string> {
  const outputs = metafile.outputs;
  const entryOutput = Object.keys(outputs).find((path) => outputs[path]!.entryPoint === entry);
  assert.ok(entryOutput, `no output for ${entry}`);
  const seen = new Set<string>();
  const pending = [entryOutput];
  while (pending.length > 0) {
    const output = pending.pop()!;
    if (seen.has(output)) continue;
    seen.add(output);
    for (const imported of outputs[output]!.imports)
      if (imported.kind === 'import-statement' && outputs[imported.path] !== undefined) pending.push(imported.path);
  }
  const inputs = new Set<string>();
  for (const output of seen) for (const input of Object.keys(outputs[output]!.inputs)) inputs.add(input);
  return inputs;
}

describe('the start-up module graph of the fogbank bundle', () => {
  it('leaves every heavy module to a chunk loaded on first use, and still bundles them', async () => {
    const result = await build({
      ...BUNDLE_OPTIONS,
      entryPoints: { fogbank: BUNDLE_OPTIONS.entryPoints['fogbank']! },
      absWorkingDir: ROOT,
      write: false,
      metafile: true,
      sourcemap: false,
      logLevel: 'error',
    });
    const atStart = [...startupInputs(result.metafile, 'src/cli/main.ts')];
    // The walk itself is sound: core and a family's definition are there.
    for (const expected of [/src\/core\/server\.ts$/, /src\/services\/mail\/index\.ts$/]) {
      assert.ok(
        atStart.some((input) => expected.test(input)),
        `start-up graph lacks ${expected}`,
      );
    }
    const everything = Object.keys(result.metafile.inputs);
    for (const { input, why } of HEAVY) {
      assert.ok(
        everything.some((path) => input.test(path)),
        `${input} is not bundled at all (${why}): the check would pass vacuously`,
      );
      const loaded = atStart.filter((path) => input.test(path));
      assert.deepEqual(loaded, [], `${why} is loaded at start-up (${loaded[0]}); import it with import() where it is first used`);
    }
  });
});
