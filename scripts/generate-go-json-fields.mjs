// Generates src/services/cluster/builtin/go-json-fields.generated.ts: for every Go struct of the
// built-in API types, which JSON members Go's encoding/json always writes and which it leaves out
// when empty, so the cluster family's encoder writes a stored object as the apiserver does.
//
// Usage: node scripts/generate-go-json-fields.mjs <k8s.io/api tree> <k8s.io/apimachinery tree> [<k8s.io/kube-aggregator tree>]
//
// The inputs are the published staging repositories kubernetes/api, kubernetes/apimachinery and
// kubernetes/kube-aggregator at the tag matching Kubernetes 1.32 (`git archive v0.32.9 | tar -x`,
// each into a directory of its own outside this repository). The kube-aggregator tree is optional
// only so an older invocation still runs: without it apiregistration.k8s.io/v1 (APIService) is
// missing from the table, and the every-kind test in go-json-encoding.test.ts says so. Only their
// Go declarations are read (struct fields with their `json` tags, named types, imports); nothing
// of them is copied.
//
// encoding/json's rules, as the table encodes them:
// - a field without `omitempty` is always written: its zero value when unset (`""`, `0`, `false`,
//   `null` for pointers, slices, maps and interfaces, `{…}` for a struct);
// - a non-pointer struct is always written, `omitempty` or not (Go never finds a struct empty),
//   and types with a MarshalJSON of their own write their zero value their way: metav1.Time and
//   MicroTime `null`, metav1.Duration `"0s"`, resource.Quantity `"0"`, intstr.IntOrString `0`,
//   runtime.RawExtension `null`;
// - an `omitempty` string, number, bool, slice or map is left out when empty (`""`, `0`, `false`,
//   `[]`, `{}`); an `omitempty` pointer is written whenever set, even to a zero value;
// - an embedded struct with no JSON name (`json:",inline"`) has its fields promoted.
//
// Output: a module exporting one JSON string `{ <component name>: [[jsonName, mode, child?], …] }`
// (component names as the OpenAPI documents name the types, `io.k8s.api.core.v1.ServiceStatus`).
// mode is `o` (omitted when empty), `p` (written when set, as set) or the zero value written when
// the member is unset: `{}` (a struct, filled by its own entry), `null`, `""`, `0`, `false`, `"0"`,
// `"0s"`. child, for members that hold structs, is `s:<component>`, `l:<component>` (a list of
// them) or `m:<component>` (a map of them). Structs with nothing to do are left out, and so are
// `p` members whose structs have nothing to do.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const apiTree = process.argv[2];
const machineryTree = process.argv[3];
const aggregatorTree = process.argv[4];
if (apiTree === undefined || machineryTree === undefined) {
  console.error(
    'usage: node scripts/generate-go-json-fields.mjs <k8s.io/api tree at v0.32.x> <k8s.io/apimachinery tree at v0.32.x> [<k8s.io/kube-aggregator tree at v0.32.x>]',
  );
  process.exit(2);
}
const OUTPUT = new URL('../src/services/cluster/builtin/go-json-fields.generated.ts', import.meta.url);

/**
 * The packages of k8s.io/api read: the group-versions a default 1.32 apiserver serves (no beta
 * APIs: resource.k8s.io/v1beta1 is off unless `--runtime-config` turns it on), with the review and
 * Scale types.
 */
const API_DIRS = [
  'core/v1',
  'admissionregistration/v1',
  'apps/v1',
  'authentication/v1',
  'authorization/v1',
  'autoscaling/v1',
  'autoscaling/v2',
  'batch/v1',
  'certificates/v1',
  'coordination/v1',
  'discovery/v1',
  'events/v1',
  'flowcontrol/v1',
  'networking/v1',
  'node/v1',
  'policy/v1',
  'rbac/v1',
  'scheduling/v1',
  'storage/v1',
];
const META_PATH = 'k8s.io/apimachinery/pkg/apis/meta/v1';
const packages = [
  ...API_DIRS.map((dir) => ({ path: `k8s.io/api/${dir}`, dir: join(apiTree, dir), component: `io.k8s.api.${dir.replace('/', '.')}` })),
  { path: META_PATH, dir: join(machineryTree, 'pkg/apis/meta/v1'), component: 'io.k8s.apimachinery.pkg.apis.meta.v1' },
  // apiregistration.k8s.io/v1 (APIService), served by the aggregator in front of kube-apiserver.
  ...(aggregatorTree === undefined
    ? []
    : [
        {
          path: 'k8s.io/kube-aggregator/pkg/apis/apiregistration/v1',
          dir: join(aggregatorTree, 'pkg/apis/apiregistration/v1'),
          component: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1',
        },
      ]),
];
if (aggregatorTree === undefined) console.warn('no k8s.io/kube-aggregator tree given: APIService is left out of the table');

/** Types whose MarshalJSON writes their zero value their own way, by import path and name. */
const SPECIAL = new Map([
  [`${META_PATH}.Time`, 'null'],
  [`${META_PATH}.MicroTime`, 'null'],
  [`${META_PATH}.Duration`, '"0s"'],
  [`${META_PATH}.FieldsV1`, 'null'],
  ['k8s.io/apimachinery/pkg/api/resource.Quantity', '"0"'],
  ['k8s.io/apimachinery/pkg/util/intstr.IntOrString', '0'],
  ['k8s.io/apimachinery/pkg/runtime.RawExtension', 'null'],
]);
/** Named types of packages not read, by their underlying kind. */
const EXTERNAL = new Map([
  ['k8s.io/apimachinery/pkg/types.UID', 'string'],
  ['k8s.io/apimachinery/pkg/runtime.Object', 'interface'],
]);
const SCALAR_ZERO = { string: '""', bool: 'false', number: '0' };

/** declarations: `<import path>.<Type>` → { kind: 'struct', fields } | { kind: 'alias', expr, pkg }. */
const declarations = new Map();
for (const pkg of packages) {
  for (const name of readdirSync(pkg.dir).sort()) {
    const file = join(pkg.dir, name);
    if (!name.endsWith('.go') || name.endsWith('_test.go') || name.startsWith('zz_generated') || name.endsWith('.pb.go') || statSync(file).isDirectory())
      continue;
    if (name.includes('swagger_doc')) continue;
    readFile(pkg, readFileSync(file, 'utf8'));
  }
}

function readFile(pkg, text) {
  const imports = new Map();
  const importBlock = /^import \(([\s\S]*?)^\)/m.exec(text);
  const importLines = importBlock === null ? [...text.matchAll(/^import (.*)$/gm)].map((m) => m[1]) : importBlock[1].split('\n');
  for (const raw of importLines) {
    const m = /^\s*(\w+)?\s*"([^"]+)"/.exec(raw);
    if (m === null) continue;
    imports.set(m[1] ?? m[2].slice(m[2].lastIndexOf('/') + 1), m[2]);
  }
  const context = { pkg, imports };
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const struct = /^type (\w+) struct \{\s*$/.exec(line);
    if (struct !== null) {
      const fields = [];
      for (index++; index < lines.length && lines[index] !== '}'; index++) {
        const fieldLine = lines[index];
        if (/^\s*\/\*/.test(fieldLine)) {
          while (index < lines.length && !lines[index].includes('*/')) index++;
          continue;
        }
        if (/^\s*(\/\/|$)/.test(fieldLine)) continue;
        const named = /^\t(\w+)\s+([^\s`]+)\s*(`[^`]*`)?/.exec(fieldLine);
        const embedded = /^\t([*\w.]+)\s*(`[^`]*`)?\s*$/.exec(fieldLine);
        if (embedded !== null) fields.push({ goName: undefined, type: embedded[1], tag: embedded[2] ?? '' });
        else if (named !== null) fields.push({ goName: named[1], type: named[2], tag: named[3] ?? '' });
        else throw new Error(`${pkg.path}: cannot read field line ${JSON.stringify(fieldLine)}`);
      }
      declarations.set(`${pkg.path}.${struct[1]}`, { kind: 'struct', fields, context });
      continue;
    }
    if (/^type \w+ (struct|interface) \{\s*\}?\s*$/.test(line) || /^type \w+ interface/.test(line)) {
      const name = /^type (\w+)/.exec(line)[1];
      if (/interface/.test(line)) declarations.set(`${pkg.path}.${name}`, { kind: 'interface' });
      else declarations.set(`${pkg.path}.${name}`, { kind: 'struct', fields: [], context });
      continue;
    }
    const alias = /^type (\w+) (?:= )?(\S+)/.exec(line);
    if (alias !== null) declarations.set(`${pkg.path}.${alias[1]}`, { kind: 'alias', expr: alias[2], context });
  }
}

/** qualify turns a type name as written in a file into `<import path>.<Type>`. */
function qualify(name, context) {
  const dot = name.indexOf('.');
  if (dot === -1) return `${context.pkg.path}.${name}`;
  const path = context.imports.get(name.slice(0, dot));
  if (path === undefined) throw new Error(`${context.pkg.path}: unknown package of ${name}`);
  return `${path}.${name.slice(dot + 1)}`;
}

/** componentOf is the OpenAPI component name of a struct declared in a package read. */
function componentOf(qualified) {
  const dot = qualified.lastIndexOf('.');
  const pkg = packages.find((p) => p.path === qualified.slice(0, dot));
  return pkg === undefined ? undefined : `${pkg.component}.${qualified.slice(dot + 1)}`;
}

/**
 * shape describes a Go type expression: { kind: 'scalar', zero } | { kind: 'struct', name } |
 * { kind: 'special', zero } | { kind: 'pointer'|'slice'|'map', element } | { kind: 'interface' }.
 */
function shape(expr, context) {
  if (expr.startsWith('*')) return { kind: 'pointer', element: shape(expr.slice(1), context) };
  if (expr === '[]byte') return { kind: 'slice', element: { kind: 'scalar', zero: '0' } };
  if (expr.startsWith('[]')) return { kind: 'slice', element: shape(expr.slice(2), context) };
  if (expr.startsWith('map[')) return { kind: 'map', element: shape(expr.slice(expr.indexOf(']') + 1), context) };
  if (expr === 'string') return { kind: 'scalar', zero: SCALAR_ZERO.string };
  if (expr === 'bool') return { kind: 'scalar', zero: SCALAR_ZERO.bool };
  if (/^(u?int(8|16|32|64)?|float(32|64)|byte|rune)$/.test(expr)) return { kind: 'scalar', zero: SCALAR_ZERO.number };
  if (expr === 'interface{}' || expr === 'any') return { kind: 'interface' };
  const qualified = qualify(expr, context);
  const special = SPECIAL.get(qualified);
  if (special !== undefined) return { kind: 'special', zero: special };
  const external = EXTERNAL.get(qualified);
  if (external === 'string') return { kind: 'scalar', zero: SCALAR_ZERO.string };
  if (external === 'interface') return { kind: 'interface' };
  const declaration = declarations.get(qualified);
  if (declaration === undefined) throw new Error(`type ${qualified} is not declared in the packages read`);
  if (declaration.kind === 'struct') return { kind: 'struct', name: qualified };
  if (declaration.kind === 'interface') return { kind: 'interface' };
  return shape(declaration.expr, declaration.context);
}

/** fieldsOf lists a struct's JSON members, embedded structs' promoted ones in place. */
function fieldsOf(qualified) {
  const declaration = declarations.get(qualified);
  const out = [];
  for (const field of declaration.fields) {
    const tag = /json:"([^"]*)"/.exec(field.tag)?.[1];
    if (tag === '-') continue;
    const [jsonName = '', ...options] = (tag ?? '').split(',');
    if (field.goName === undefined && jsonName === '') {
      const inner = shape(field.type, declaration.context);
      const target = inner.kind === 'pointer' ? inner.element : inner;
      if (target.kind !== 'struct') throw new Error(`${qualified}: embedded ${field.type} is not a struct`);
      out.push(...fieldsOf(target.name));
      continue;
    }
    if (field.goName !== undefined && !/^[A-Z]/.test(field.goName)) continue;
    const name = jsonName === '' ? (field.goName ?? field.type.replace(/^.*\./, '')) : jsonName;
    out.push({ name, shape: shape(field.type, declaration.context), omitEmpty: options.includes('omitempty') });
  }
  return out;
}

/** structChild is the struct a member holds (directly, through a pointer, in a list or a map), with the container letter. */
function structChild(memberShape) {
  let current = memberShape;
  while (current.kind === 'pointer') current = current.element;
  if (current.kind === 'struct') return ['s', current.name];
  if (current.kind === 'slice' || current.kind === 'map') {
    let element = current.element;
    while (element.kind === 'pointer') element = element.element;
    if (element.kind === 'struct') return [current.kind === 'slice' ? 'l' : 'm', element.name];
  }
  return undefined;
}

const entries = new Map();
const pending = [];
for (const [qualified, declaration] of declarations)
  if (declaration.kind === 'struct' && componentOf(qualified) !== undefined && !SPECIAL.has(qualified)) pending.push(qualified);
for (const qualified of pending) {
  const members = [];
  for (const field of fieldsOf(qualified)) {
    const child = structChild(field.shape);
    let mode;
    if (field.shape.kind === 'struct') mode = '{}';
    else if (field.shape.kind === 'special') mode = field.shape.zero;
    else if (!field.omitEmpty) mode = field.shape.kind === 'scalar' ? field.shape.zero : 'null';
    else mode = field.shape.kind === 'pointer' || field.shape.kind === 'interface' ? 'p' : 'o';
    members.push({ name: field.name, mode, child });
  }
  entries.set(qualified, members);
}

// A struct has work when a member is written or dropped by the rules, or holds a struct that has.
const work = new Map();
function hasWork(qualified) {
  if (work.has(qualified)) return work.get(qualified);
  work.set(qualified, false);
  const members = entries.get(qualified) ?? [];
  const result = members.some((member) => member.mode !== 'p' || (member.child !== undefined && hasWork(member.child[1])));
  work.set(qualified, result);
  return result;
}

const table = {};
for (const qualified of [...entries.keys()].sort((a, b) => componentOf(a).localeCompare(componentOf(b)))) {
  if (!hasWork(qualified)) continue;
  const members = [];
  for (const member of entries.get(qualified)) {
    const child = member.child !== undefined && hasWork(member.child[1]) ? `${member.child[0]}:${componentOf(member.child[1])}` : undefined;
    if (member.mode === 'p' && child === undefined) continue;
    members.push(child === undefined ? [member.name, member.mode] : [member.name, member.mode, child]);
  }
  table[componentOf(qualified)] = members;
}

writeFileSync(
  OUTPUT,
  [
    aggregatorTree === undefined
      ? '// Generated by scripts/generate-go-json-fields.mjs from the Go declarations of k8s.io/api and\n// k8s.io/apimachinery v0.32 (Apache-2.0). Do not edit; run the generator again.'
      : '// Generated by scripts/generate-go-json-fields.mjs from the Go declarations of k8s.io/api,\n// k8s.io/apimachinery and k8s.io/kube-aggregator v0.32 (Apache-2.0). Do not edit; run the generator again.',
    '',
    "/** GO_JSON_FIELDS_JSON is the JSON text of the structs' members as encoding/json writes them: component → [[jsonName, mode, child?], …]. */",
    // As Biome formats it: a single-quoted string on a line of its own.
    'export const GO_JSON_FIELDS_JSON =',
    `  '${JSON.stringify(table).replaceAll('\\', '\\\\').replaceAll("'", "\\'")}';`,
    '',
  ].join('\n'),
);
console.log(`${Object.keys(table).length} structs of ${entries.size}`);
