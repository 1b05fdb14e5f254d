// Byte-for-byte parity of fogbank's plugin host with real protoc (npm protoc 3.21.0 and 36.2):
// a scripted replay plugin emits a canned CodeGeneratorResponse under both, and the output
// trees, stderr and exit codes must be identical.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { runProtocCommand } from '../../src/plugin/protoc-command.ts';
import { descriptorSet, PROTOC, readTree, run, tempDir, writeReplayPlugin, type ReplayPlugin } from '../harness/protos.ts';

interface Scenario {
  readonly name: string;
  readonly plugins: readonly ReplayPlugin[];
  readonly files?: readonly string[];
  readonly dirs?: readonly string[];
  /** barePlugin registers plugins as `--plugin=PATH` (named after the file) instead of `NAME=PATH`. */
  readonly barePlugin?: true;
  /** only limits a scenario to one protoc whose behaviour the other mode does not promise. */
  readonly only?: 'oldest' | 'newest';
}

const TEMPLATE = 'header\n  // @@protoc_insertion_point(body)\n\t\t// @@protoc_insertion_point(tabs)\nfooter\n';

// Hand-encoded: a string decoder would turn the bytes into U+FFFD, and protoc writes them as sent.
function invalidUtf8Response(): Uint8Array {
  const file = (name: string, content: number[]) =>
    new BinaryWriter().tag(1, WireType.LengthDelimited).string(name).tag(15, WireType.LengthDelimited).bytes(new Uint8Array(content)).finish();
  return new BinaryWriter()
    .tag(2, WireType.Varint)
    .uint64(1)
    .tag(15, WireType.LengthDelimited)
    .bytes(file('f.txt', [0x61, 0xff, 0x0a]))
    .tag(15, WireType.LengthDelimited)
    .bytes(file('g.txt', [0xc3]))
    .finish();
}

const SCENARIOS: readonly Scenario[] = [
  { name: '--plugin=PATH names the plugin after the file', barePlugin: true, plugins: [{ name: 'a', out: 'out', files: [{ name: 'x.txt', content: 'x\n' }] }] },
  {
    name: 'plain files in nested dirs',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'x.txt', content: 'x\n' },
          { name: 'd/e/y.txt', content: 'y' },
        ],
      },
    ],
  },
  {
    name: 'insertion with space indent, blank lines and no final newline',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: TEMPLATE },
          { name: 'f.txt', ip: 'body', content: 'one\n\ntwo' },
        ],
      },
    ],
  },
  {
    name: 'insertion with tab indent and CRLF',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: TEMPLATE },
          { name: 'f.txt', ip: 'tabs', content: 'a\r\nb\r\n' },
        ],
      },
    ],
  },
  {
    name: 'several insertions at one point keep their order',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: TEMPLATE },
          { name: 'f.txt', ip: 'body', content: '1\n' },
          { name: 'f.txt', ip: 'body', content: '2\n' },
          { name: 'f.txt', ip: 'tabs', content: '3\n' },
          { name: 'f.txt', ip: 'body', content: '4\n' },
        ],
      },
    ],
  },
  {
    name: 'marker on the first line, inline /* */ form and /*@@ without space',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          {
            name: 'f.txt',
            content: '// @@protoc_insertion_point(top)\n  foo(/* @@protoc_insertion_point(inline) */);\n  bar(/*@@protoc_insertion_point(tight)*/);\n',
          },
          { name: 'f.txt', ip: 'top', content: 'T' },
          { name: 'f.txt', ip: 'inline', content: 'INS' },
          { name: 'f.txt', ip: 'tight', content: 'X' },
        ],
      },
    ],
  },
  {
    name: 'first marker wins and pp does not match p',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: '@@protoc_insertion_point(pp)\n@@protoc_insertion_point(p)\n@@protoc_insertion_point(p)\n' },
          { name: 'f.txt', ip: 'p', content: 'P\n' },
        ],
      },
    ],
  },
  {
    name: 'omitted name appends to the previous file and to the previous insertion',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: 'A\n' },
          { content: '@@protoc_insertion_point(p)\n' },
          { name: 'f.txt', ip: 'p', content: 'X' },
          { content: 'Y' },
          { name: 'f.txt', ip: 'p', content: 'Z\n' },
          { name: '', content: 'appended\n' },
        ],
      },
    ],
  },
  {
    name: 'cross-generator insertion into an earlier generator file',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [{ name: 'gen/f.ts', content: 'import x;\n// @@protoc_insertion_point(imports)\nclass C {\n  // @@protoc_insertion_point(class_scope:C)\n}\n' }],
      },
      {
        name: 'b',
        out: 'out/',
        files: [
          { name: 'gen/f.ts', ip: 'imports', content: 'import y;\n' },
          { name: 'gen/f.ts', ip: 'class_scope:C', content: 'extra(): void {}\n' },
        ],
      },
    ],
  },
  {
    name: 'empty insertion content still checks the point',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: TEMPLATE },
          { name: 'f.txt', ip: 'body', content: '' },
        ],
      },
    ],
  },
  {
    name: 'generated code info of an insertion creates and shifts .pb.meta',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: TEMPLATE },
          {
            name: 'f.txt',
            ip: 'body',
            content: 'ab\ncd\n',
            info: [
              { begin: 0, end: 2, path: [4, 0] },
              { begin: 3, end: 5, path: [4, 1] },
            ],
          },
          { name: 'f.txt', ip: 'body', content: 'zz\n', info: [{ begin: 0, end: 2, path: [4, 2] }] },
        ],
      },
    ],
  },
  {
    name: 'insert into a missing file',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'ok.txt', content: 'ok\n' },
          { name: 'f.txt', ip: 'p', content: 'x' },
        ],
      },
    ],
  },
  {
    name: 'missing insertion point',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: TEMPLATE },
          { name: 'f.txt', ip: 'q', content: 'x' },
        ],
      },
    ],
  },
  { name: 'insertion point with no name', plugins: [{ name: 'a', out: 'out', files: [{ ip: 'p', content: 'x' }] }] },
  {
    name: 'duplicate file in one response',
    plugins: [
      {
        name: 'a',
        out: 'out',
        files: [
          { name: 'f.txt', content: '1' },
          { name: 'f.txt', content: '2' },
        ],
      },
    ],
  },
  {
    name: 'duplicate file across generators sharing a location',
    plugins: [
      { name: 'a', out: 'out', files: [{ name: 'f.txt', content: '1' }] },
      { name: 'b', out: 'out', files: [{ name: 'f.txt', content: '2' }] },
    ],
  },
  {
    name: 'out and ./out are different contexts, and the failing one is written first',
    // 36.2 may write the healthy location before failing, depending on its hash seed.
    only: 'oldest',
    plugins: [
      { name: 'a', out: 'out', files: [{ name: 'f.txt', content: TEMPLATE }] },
      { name: 'b', out: './out', files: [{ name: 'f.txt', ip: 'body', content: 'x' }] },
    ],
  },
  {
    name: 'insertion before the target is written leaves an empty entry behind',
    plugins: [
      { name: 'b', out: 'out', files: [{ name: 'f.txt', ip: 'body', content: 'x' }] },
      { name: 'a', out: 'out', files: [{ name: 'f.txt', content: TEMPLATE }] },
    ],
  },
  { name: 'response error', plugins: [{ name: 'a', out: 'out', error: 'bad thing happened', files: [{ name: 'f.txt', content: 'x' }] }] },
  {
    name: 'insertion error and response error',
    plugins: [
      { name: 'a', out: 'out', files: [{ name: 'f.txt', content: TEMPLATE }] },
      { name: 'b', out: 'out', error: 'gen failed', files: [{ name: 'f.txt', ip: 'q', content: 'x' }] },
    ],
  },
  {
    name: 'first plugin fails so the second never runs and nothing is written',
    plugins: [
      { name: 'a', out: 'out', error: 'first failed', files: [{ name: 'a.txt', content: 'a' }] },
      { name: 'b', out: 'out2', files: [{ name: 'b.txt', content: 'b' }] },
    ],
  },
  { name: 'non-zero exit with own stderr', plugins: [{ name: 'a', out: 'out', exit: 3, stderr: 'my own stderr\n', files: [{ name: 'f.txt', content: 'x' }] }] },
  { name: 'non-zero exit hides response error', plugins: [{ name: 'a', out: 'out', exit: 2, error: 'hidden' }] },
  { name: 'killed by a signal', plugins: [{ name: 'a', out: 'out', signal: 'SIGKILL', files: [{ name: 'f.txt', content: 'x' }] }] },
  { name: 'unparseable output', plugins: [{ name: 'a', out: 'out', raw: new Uint8Array([0xff, 0x01]) }] },
  { name: 'unparseable output with printable bytes', plugins: [{ name: 'a', out: 'out', raw: Buffer.from('\n"\'\\ok\x7f\x00\x0f') }] },
  { name: 'empty output is an empty response', plugins: [{ name: 'a', out: 'out', raw: new Uint8Array(0) }] },
  { name: 'first chunk without a name', plugins: [{ name: 'a', out: 'out', files: [{ content: 'x' }] }] },
  { name: 'plugin path does not exist', plugins: [{ name: 'nope', out: 'out', missing: true }] },
  { name: 'plugin not on PATH', plugins: [{ name: 'nope', out: 'out', missing: 'path' }] },
  { name: 'missing output directory', dirs: [], plugins: [{ name: 'a', out: 'out', files: [{ name: 'f.txt', content: 'x' }] }] },
  {
    name: 'parameters from out and opts reach the plugin and locations with a parameter share a context',
    plugins: [
      { name: 'a', out: 'out', param: 'k=v,x', files: [{ name: 'f.txt', content: TEMPLATE }] },
      { name: 'b', out: 'out', files: [{ name: 'f.txt', ip: 'body', content: 'from b' }] },
    ],
  },
  {
    name: 'proto3 optional without the feature',
    files: ['parity/optional.proto'],
    plugins: [
      {
        name: 'a',
        out: 'out',
        features: 0,
        files: [
          { name: 'f.txt', content: TEMPLATE },
          { name: 'f.txt', ip: 'q', content: 'x' },
        ],
      },
    ],
  },
  {
    name: 'proto3 optional without the feature and a response error',
    files: ['parity/optional.proto'],
    plugins: [{ name: 'a', out: 'out', features: 0, error: 'E2' }],
  },
  {
    name: 'proto3 optional with the feature',
    files: ['parity/optional.proto'],
    plugins: [{ name: 'a', out: 'out', features: 1, files: [{ name: 'f.txt', content: 'ok' }] }],
  },
  { name: 'name escaping the output directory', only: 'newest', plugins: [{ name: 'a', out: 'out/sub', files: [{ name: '../esc.txt', content: 'x' }] }] },
  { name: 'name containing .. inside a component', only: 'newest', plugins: [{ name: 'a', out: 'out', files: [{ name: 'a..b.txt', content: 'x' }] }] },
  {
    name: 'editions file without the editions feature',
    only: 'newest',
    files: ['editions/edition2023.proto'],
    plugins: [{ name: 'a', out: 'out', features: 1, files: [{ name: 'f.txt', content: 'x' }] }],
  },
  {
    name: 'editions file below the minimum edition',
    only: 'newest',
    files: ['editions/edition2023.proto'],
    plugins: [{ name: 'a', out: 'out', minEdition: 1001, maxEdition: 1001, files: [{ name: 'f.txt', content: 'x' }] }],
  },
  {
    name: 'editions file above the maximum edition (max left at 0) and a response error',
    only: 'newest',
    files: ['editions/edition2023.proto'],
    plugins: [{ name: 'a', out: 'out', minEdition: 0, maxEdition: 0, error: 'also broken' }],
  },
  {
    name: 'editions file within the window',
    only: 'newest',
    files: ['editions/edition2023.proto'],
    plugins: [{ name: 'a', out: 'out', files: [{ name: 'f.txt', content: 'x' }] }],
  },
  { name: 'invalid UTF-8 content is written as the raw bytes', plugins: [{ name: 'a', out: 'out', raw: invalidUtf8Response() }] },
  { name: 'absolute name stays inside the output directory', plugins: [{ name: 'a', out: 'out', files: [{ name: '/abs.txt', content: 'x' }] }] },
  { name: 'backslash in a name', plugins: [{ name: 'a', out: 'out', files: [{ name: 'd\\e.txt', content: 'x' }] }] },
];

function argsFor(s: Scenario, scripts: string, schema: string): string[] {
  const args = [`--descriptor_set_in=${schema}`];
  for (const p of s.plugins) {
    if (p.missing === true) args.push(`--plugin=protoc-gen-${p.name}=${join(scripts, 'does-not-exist', p.name)}`);
    else if (p.missing === undefined) {
      const path = writeReplayPlugin(scripts, p);
      args.push(s.barePlugin ? `--plugin=${path}` : `--plugin=protoc-gen-${p.name}=${path}`);
    }
    args.push(`--${p.name}_out=${p.param ? `${p.param}:` : ''}${p.out}`);
  }
  return [...args, ...(s.files ?? ['parity/plain.proto'])];
}

const schemaDir = tempDir('parity-schema');
const schema = descriptorSet(['parity/plain.proto', 'parity/optional.proto'], schemaDir);
// protoc 3.21 cannot read editions descriptors, so they live in a set of their own.
const editionsSchema = descriptorSet(['editions/edition2023.proto'], tempDir('parity-editions'));

for (const version of ['oldest', 'newest'] as const) {
  describe(`host parity with protoc ${version === 'oldest' ? '3.21.0' : '36.2'}`, () => {
    const protoc = PROTOC[version];
    const compat = version === 'oldest' ? ['--compat=protoc-legacy'] : [];
    for (const s of SCENARIOS) {
      if (s.only !== undefined && s.only !== version) continue;
      test(s.name, async () => {
        const scripts = tempDir('parity-plugins');
        const roots = [tempDir('parity-protoc'), tempDir('parity-fogbank')] as const;
        for (const root of roots) for (const d of s.dirs ?? ['out', 'out/sub', 'out2']) mkdirSync(join(root, d), { recursive: true });
        const set = s.files?.some((f) => f.startsWith('editions/')) ? editionsSchema : schema;
        const args = argsFor(s, scripts, set);
        const real = run(protoc, args, roots[0]);
        const stderr: string[] = [];
        const code = await runProtocCommand([...args, ...compat], {
          cwd: roots[1],
          stderr: (t) => void stderr.push(t),
          stdout: (t) => void stderr.push(`[stdout]${t}`),
          builtins: {},
        });
        assert.equal(stderr.join(''), real.stderr, 'stderr');
        assert.equal(code, real.status, 'exit code');
        assert.deepEqual(readTree(roots[1]), readTree(roots[0]), 'output tree');
      });
    }
  });
}
