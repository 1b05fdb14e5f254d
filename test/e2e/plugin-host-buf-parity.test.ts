// `fogbank protoc --compat=buf` against real `buf generate` 1.75: the same replay plugins, the
// same output trees, stderr (buf's colour codes aside) and exit codes.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runProtocCommand } from '../../src/plugin/protoc-command.ts';
import { clientPath } from '../harness/clients.ts';
import { descriptorSet, FIXTURE_PROTOS, readTree, run, tempDir, writeReplayPlugin, type ReplayPlugin } from '../harness/protos.ts';

interface BufScenario {
  readonly name: string;
  readonly plugins: readonly ReplayPlugin[];
  readonly files?: readonly string[];
}

const TARGET = 'a\r\n  // @@protoc_insertion_point(p)\nb\n// @@protoc_insertion_point(p)\n';

const SCENARIOS: readonly BufScenario[] = [
  {
    name: 'insertion before every marker line, CRLF folded, final newline dropped, across plugins',
    plugins: [
      { name: 'a', out: 'out', files: [{ name: 'f.txt', content: TARGET }] },
      { name: 'b', out: 'out', files: [{ name: 'f.txt', ip: 'p', content: 'x\r\ny' }] },
    ],
  },
  {
    name: 'omitted names append, also to an insertion',
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
        ],
      },
    ],
  },
  {
    name: 'missing insertion point',
    plugins: [
      { name: 'a', out: 'out', files: [{ name: 'f.txt', content: TARGET }] },
      { name: 'c', out: 'out', files: [{ name: 'f.txt', ip: 'q', content: 'x' }] },
    ],
  },
  { name: 'insertion into a missing file', plugins: [{ name: 'b', out: 'out', files: [{ name: 'f.txt', ip: 'p', content: 'x' }] }] },
  {
    name: 'insertion into another output directory',
    plugins: [
      { name: 'a', out: 'out', files: [{ name: 'f.txt', content: TARGET }] },
      { name: 'b', out: 'out2', files: [{ name: 'f.txt', ip: 'p', content: 'x' }] },
    ],
  },
  {
    name: 'duplicate inside one response is a warning',
    plugins: [
      {
        name: 'd',
        out: 'out',
        files: [
          { name: 'g.txt', content: '1' },
          { name: 'g.txt', content: '2' },
        ],
      },
    ],
  },
  {
    name: 'duplicate across plugins is a failure',
    plugins: [
      { name: 'a', out: 'out', files: [{ name: 'f.txt', content: '1' }] },
      { name: 'b', out: 'out', files: [{ name: 'f.txt', content: '2' }] },
    ],
  },
  { name: 'response error', plugins: [{ name: 'e', out: 'out', error: 'bad thing', files: [{ name: 'f.txt', content: 'x' }] }] },
  { name: 'non-zero exit', plugins: [{ name: 'f', out: 'out', exit: 3, files: [{ name: 'f.txt', content: 'x' }] }] },
  { name: 'unparseable output', plugins: [{ name: 'u', out: 'out', raw: new Uint8Array([0xff, 0x01]) }] },
  { name: 'first chunk without a name', plugins: [{ name: 'h', out: 'out', files: [{ content: 'x' }] }] },
  { name: 'insertion point without a name', plugins: [{ name: 'i', out: 'out', files: [{ ip: 'p', content: 'x' }] }] },
  { name: 'name escaping the output directory', plugins: [{ name: 'k', out: 'out', files: [{ name: '../x.txt', content: 'x' }] }] },
  { name: 'absolute name', plugins: [{ name: 'l', out: 'out', files: [{ name: '/abs.txt', content: 'x' }] }] },
  {
    name: 'proto3 optional without the feature is only a warning',
    files: ['parity/optional.proto'],
    plugins: [{ name: 'j', out: 'out', features: 0, files: [{ name: 'f.txt', content: 'x' }] }],
  },
  {
    name: 'editions without the feature is a failure',
    files: ['parity/plain.proto', 'editions/edition2023.proto'],
    plugins: [{ name: 'n', out: 'out', features: 1, files: [{ name: 'f.txt', content: 'x' }] }],
  },
];

// buf colours its WARN level when it thinks it has a terminal; the words are what is compared.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the terminal colour codes being removed
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

describe('host parity with buf generate 1.75 (--compat=buf)', () => {
  const buf = clientPath('buf');
  const schemaDir = tempDir('buf-parity-schema');
  const schema = descriptorSet(['parity/plain.proto', 'parity/optional.proto', 'editions/edition2023.proto'], schemaDir);
  for (const s of SCENARIOS) {
    test(s.name, async () => {
      const files = s.files ?? ['parity/plain.proto'];
      const scripts = tempDir('buf-parity-plugins');
      const paths = s.plugins.map((p) => writeReplayPlugin(scripts, p));
      const bufRoot = tempDir('buf-parity-buf');
      for (const dir of new Set(files.map((f) => f.slice(0, f.indexOf('/'))))) {
        cpSync(join(FIXTURE_PROTOS, dir), join(bufRoot, 'protos', dir), { recursive: true });
      }
      writeFileSync(join(bufRoot, 'buf.yaml'), 'version: v2\nmodules:\n  - path: protos\n');
      writeFileSync(join(bufRoot, 'buf.gen.yaml'), `version: v2\nplugins:\n${s.plugins.map((p, i) => `  - local: ${paths[i]}\n    out: ${p.out}\n`).join('')}`);
      const real = run(buf, ['generate', '--template', 'buf.gen.yaml', ...files.flatMap((f) => ['--path', `protos/${f}`])], bufRoot);

      const root = tempDir('buf-parity-fogbank');
      mkdirSync(join(root, 'protos'));
      const stderr: string[] = [];
      const args = [
        `--descriptor_set_in=${schema}`,
        '--compat=buf',
        ...s.plugins.flatMap((p, i) => [`--plugin=protoc-gen-${p.name}=${paths[i]}`, `--${p.name}_out=${p.out}`]),
        ...files,
      ];
      const code = await runProtocCommand(args, { cwd: root, stderr: (t) => void stderr.push(t), stdout: (t) => void stderr.push(t), builtins: {} });
      assert.equal(stderr.join(''), plain(real.stderr), 'stderr');
      assert.equal(code, real.status, 'exit code');
      const bufTree = Object.fromEntries(Object.entries(readTree(bufRoot)).filter(([k]) => k.startsWith('out')));
      assert.deepEqual(readTree(root), bufTree, 'output tree');
    });
  }
});
