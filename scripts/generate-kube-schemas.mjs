// Generates src/services/cluster/builtin/kube-schemas.generated.ts, the compact schema data of
// the built-in kinds fogbank serves, from the OpenAPI document of Kubernetes 1.32.
//
// Usage: node scripts/generate-kube-schemas.mjs <swagger.json of Kubernetes v1.32.x> <k8s.io/api tree at v0.32.x>
//
// The second input is the k8s.io/api repository (kubernetes/api, the published staging copy) at
// the tag matching 1.32: its `<group>/<version>/generated.proto` files give the protobuf field
// numbers, so the protobuf bodies kubectl's typed clients send (`kubectl create deployment …`)
// decode for every kind, not only the hand-described ones. Its `types.go` files tell which
// scalar fields Go leaves out of JSON when zero (a non-pointer field tagged omitempty), as the
// protobuf form writes them anyway.
//
// The input is the apiserver-generated OpenAPI v2 document `api/openapi-spec/swagger.json` of
// kubernetes/kubernetes at a v1.32 tag (the kubernetes-client/python v32.0.1 release carries the
// same document as `kubernetes/swagger.json.unprocessed`). It holds every definition of the v3
// documents (descriptions, required, enums, formats, list/map types, patch strategies, group-
// version-kinds); what v3 adds (defaults, nullable) fogbank does not need here.
//
// Why a committed data file rather than a build step: the document is not shipped by any npm
// package, and CI reaches only the npm registry, so the build cannot download it; the compact
// form (only the kinds served, only what decoding, validation, OpenAPI and `kubectl explain`
// read) is what the server loads on its cluster family's first request.
//
// Output: a module exporting the JSON text `{ <component name>: <Schema> }` as one string (parsed
// with JSON.parse on first use: V8 parses JSON text faster than an object literal, and the type
// checker sees one string rather than a 500 KB literal type), each Schema in the form of
// src/services/cluster/apimachinery/schema.ts. Meta types (ObjectMeta, ListMeta, LabelSelector…)
// are left out: the server's own META_SCHEMAS describe them.
import { readFileSync, writeFileSync } from 'node:fs';

const input = process.argv[2];
const apiTree = process.argv[3];
if (input === undefined || apiTree === undefined) {
  console.error('usage: node scripts/generate-kube-schemas.mjs <swagger.json of Kubernetes v1.32.x> <k8s.io/api tree at v0.32.x>');
  process.exit(2);
}
const OUTPUT = new URL('../src/services/cluster/builtin/kube-schemas.generated.ts', import.meta.url);

/** The group-versions served (GA, default-on in 1.32, plus resource.k8s.io/v1beta1). */
const SERVED = new Set([
  '/v1',
  'admissionregistration.k8s.io/v1',
  'apps/v1',
  'autoscaling/v2',
  'batch/v1',
  'certificates.k8s.io/v1',
  'coordination.k8s.io/v1',
  'discovery.k8s.io/v1',
  'flowcontrol.apiserver.k8s.io/v1',
  'networking.k8s.io/v1',
  'node.k8s.io/v1',
  'policy/v1',
  'resource.k8s.io/v1beta1',
  'scheduling.k8s.io/v1',
  'storage.k8s.io/v1',
]);

/** Kinds that are not stored objects (or are served elsewhere) and so have no schema here. */
const SKIPPED_KINDS = new Set([
  'Status',
  'WatchEvent',
  'DeleteOptions',
  'APIResourceList',
  'APIGroup',
  'APIGroupList',
  'APIVersions',
  'Scale',
  'Eviction',
  'Binding',
  'TokenRequest',
]);

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const swagger = JSON.parse(readFileSync(input, 'utf8'));
const definitions = swagger.definitions;

// Enumerations: the OpenAPI v2 document carries none (the v3 ones do, from the same `+enum`
// markers), so they are read from k8s.io/api's types.go: a `+enum` string type, its constants,
// and the struct fields of that type.
const GROUP_DIRS = [
  'core/v1',
  'admissionregistration/v1',
  'apps/v1',
  'autoscaling/v2',
  'batch/v1',
  'certificates/v1',
  'coordination/v1',
  'discovery/v1',
  'flowcontrol/v1',
  'networking/v1',
  'node/v1',
  'policy/v1',
  'resource/v1beta1',
  'scheduling/v1',
  'storage/v1',
];
const enumValues = new Map(); // `${dir}:${Type}` → values
const fieldDefaults = new Map(); // `${definition}.${jsonName}` → default (+default= markers)
const PACKAGE_OF_DIR = (dir) => {
  const [group, version] = dir.split('/');
  return `io.k8s.api.${group}.${version}`;
};
const fieldTypes = []; // [dir, struct, jsonName, goType]
for (const dir of GROUP_DIRS) {
  const lines = readFileSync(`${apiTree}/${dir}/types.go`, 'utf8').split('\n');
  let marked = false;
  let struct;
  let pendingDefault;
  for (const line of lines) {
    if (/^\/\/ \+enum\b/.test(line)) marked = true;
    const defaultMarker = /^\s+\/\/ \+default=(.+)$/.exec(line);
    if (defaultMarker !== null) pendingDefault = defaultMarker[1];
    const typeLine = /^type (\w+) (\w+)/.exec(line);
    if (typeLine !== null) {
      if (marked && typeLine[2] === 'string') enumValues.set(`${dir}:${typeLine[1]}`, []);
      marked = false;
      struct = typeLine[2] === 'struct' ? typeLine[1] : undefined;
      continue;
    }
    const constant = /^\s+\w+\s+(\w+)\s+=\s+"([^"]*)"/.exec(line);
    if (constant !== null && enumValues.has(`${dir}:${constant[1]}`)) enumValues.get(`${dir}:${constant[1]}`).push(constant[2]);
    const field = /^\s+\w+\s+(\S+)\s+`json:"([^",]*)/.exec(line);
    if (struct !== undefined && field !== null) {
      fieldTypes.push([dir, struct, field[2], field[1]]);
      if (pendingDefault !== undefined) {
        try {
          fieldDefaults.set(`${PACKAGE_OF_DIR(dir)}.${struct}.${field[2]}`, JSON.parse(pendingDefault));
        } catch {
          // A default that is not JSON (a Go expression) is not a key default anyway.
        }
      }
    }
    if (!/^\s+\/\//.test(line)) pendingDefault = undefined;
    if (line === '}') struct = undefined;
  }
}
for (const [dir, struct, jsonName, goType] of fieldTypes) {
  const bare = goType.replace(/^(\[\]|\*)+/, '');
  const qualified = /^(\w+)\.(\w+)$/.exec(bare);
  // A type from another package here is always core/v1's (`v1.Protocol`).
  const key = qualified === null ? `${dir}:${bare}` : `core/v1:${qualified[2]}`;
  const values = enumValues.get(key);
  const definition = definitions[`${PACKAGE_OF_DIR(dir)}.${struct}`];
  const property = definition?.properties?.[jsonName];
  if (values === undefined || values.length === 0 || property === undefined) continue;
  const target = property.type === 'array' ? property.items : property;
  if (target.type === 'string') target.enum = [...new Set(values)].sort();
}

const roots = [];
for (const [name, definition] of Object.entries(definitions)) {
  for (const gvk of definition['x-kubernetes-group-version-kind'] ?? []) {
    if (SERVED.has(`${gvk.group}/${gvk.version}`) && !SKIPPED_KINDS.has(gvk.kind) && name.startsWith('io.k8s.api.')) roots.push(name);
  }
}

const out = {};
const refName = (ref) => ref.replace('#/definitions/', '');

/** convert turns one OpenAPI v2 schema into the server's Schema form, queuing referenced definitions. */
function convert(schema, queue) {
  const description = schema.description;
  const withDescription = (value) => (description === undefined ? value : { ...value, description });
  if (schema.$ref !== undefined) {
    const target = refName(schema.$ref);
    const resolved = inline(target);
    if (resolved !== undefined) return description === undefined ? resolved : { ...resolved, description };
    queue.push(target);
    return { $ref: target };
  }
  if (schema['x-kubernetes-int-or-string'] === true || schema.format === 'int-or-string')
    return withDescription({ type: 'int-or-string', goType: 'intstr.IntOrString' });
  switch (schema.type) {
    case 'string':
      return withDescription({
        type: 'string',
        ...(schema.format === 'byte' || schema.format === 'date-time' ? { format: schema.format } : {}),
        ...(schema.enum === undefined ? {} : { enum: schema.enum }),
      });
    case 'integer':
      return withDescription({ type: 'integer', format: schema.format === 'int32' ? 'int32' : 'int64' });
    case 'number':
      return withDescription({ type: 'number', format: 'double' });
    case 'boolean':
      return withDescription({ type: 'boolean' });
    case 'array': {
      const keys = schema['x-kubernetes-list-map-keys'];
      const itemName = schema.items.$ref === undefined ? undefined : refName(schema.items.$ref);
      const keyDefaults = {};
      for (const key of keys ?? []) {
        const value = fieldDefaults.get(`${itemName}.${key}`);
        if (value !== undefined) keyDefaults[key] = value;
      }
      return withDescription({
        type: 'array',
        items: convert(schema.items, queue),
        ...(schema['x-kubernetes-list-type'] === undefined ? {} : { listType: schema['x-kubernetes-list-type'] }),
        ...(keys === undefined ? {} : { listMapKeys: keys }),
        ...(Object.keys(keyDefaults).length === 0 ? {} : { listMapKeyDefaults: keyDefaults }),
        ...(schema['x-kubernetes-patch-strategy'] === undefined ? {} : { patchStrategy: schema['x-kubernetes-patch-strategy'] }),
        ...(schema['x-kubernetes-patch-merge-key'] === undefined ? {} : { patchMergeKey: schema['x-kubernetes-patch-merge-key'] }),
      });
    }
    default:
      if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') {
        return withDescription({ type: 'map', values: convert(schema.additionalProperties, queue) });
      }
      return withDescription({ type: 'any' });
  }
}

/** inline answers the definitions written in place rather than referenced (scalars and free-form JSON). */
function inline(name) {
  switch (name) {
    case `${META}Time`:
      return { type: 'string', format: 'date-time' };
    case `${META}MicroTime`:
      return { type: 'string', format: 'micro-time' };
    case 'io.k8s.apimachinery.pkg.util.intstr.IntOrString':
      return { type: 'int-or-string', goType: 'intstr.IntOrString' };
    case 'io.k8s.apimachinery.pkg.api.resource.Quantity':
      return { type: 'int-or-string', goType: 'resource.Quantity' };
    case 'io.k8s.apimachinery.pkg.runtime.RawExtension':
    case `${META}FieldsV1`:
      return { type: 'any' };
    default:
      return undefined;
  }
}

const KEPT_META = new Set([`${META}Condition`]);
const queue = [...roots];
while (queue.length > 0) {
  const name = queue.pop();
  if (name in out) continue;
  if (name.startsWith(META) && !KEPT_META.has(name)) continue;
  const definition = definitions[name];
  if (definition === undefined) throw new Error(`definition ${name} is missing`);
  if (definition.properties === undefined) {
    out[name] = convert(definition, queue);
    continue;
  }
  const properties = {};
  for (const [key, property] of Object.entries(definition.properties)) properties[key] = convert(property, queue);
  out[name] = {
    type: 'object',
    goName: name.slice(name.lastIndexOf('.') + 1),
    properties,
    ...(definition.required === undefined ? {} : { required: definition.required }),
    ...(definition.description === undefined ? {} : { description: definition.description }),
    ...(definition['x-kubernetes-map-type'] === 'atomic' ? { mapType: 'atomic' } : {}),
  };
}

const sorted = {};
for (const name of Object.keys(out).sort()) sorted[name] = out[name];

// Protobuf layouts: `{ <message>: { <field number>: [jsonName, type, repeated, omitZero] } }` for every
// message the served kinds reach; type is a scalar (`string`, `int32`, `int64`, `bool`, `bytes`,
// `double`, `float`), `map:<value type>`, or a message's component name.
const PROTO_DIRS = [...SERVED].map((gv) => {
  const [group, version] = gv.split('/');
  const short = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').replace('flowcontrol.apiserver', 'flowcontrol');
  return `${short}/${version}`;
});
const messages = {};
const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'bytes', 'double', 'float']);
const protoName = (type) => (type.startsWith('.k8s.io.') ? `io.k8s.${type.slice('.k8s.io.'.length)}` : type);
for (const dir of PROTO_DIRS) {
  const text = readFileSync(`${apiTree}/${dir}/generated.proto`, 'utf8');
  const pkg = /^package ([\w.]+);/m.exec(text)[1];
  const prefix = protoName(`.${pkg}`);
  let current;
  for (const line of text.split('\n')) {
    const start = /^message (\w+) \{/.exec(line);
    if (start !== null) {
      current = {};
      messages[`${prefix}.${start[1]}`] = current;
      continue;
    }
    if (line === '}') {
      current = undefined;
      continue;
    }
    const field = /^\s+(optional |repeated )?(map<string, ([\w.]+)>|[\w.]+) (\w+) = (\d+);/.exec(line);
    if (current === undefined || field === null) continue;
    // Types of the same package are written unqualified.
    const qualify = (type) => (type.startsWith('.') ? protoName(type) : SCALARS.has(type) ? type : `${prefix}.${type}`);
    const type = field[3] !== undefined ? `map:${qualify(field[3])}` : qualify(field[2]);
    current[field[5]] = field[1] === 'repeated ' ? [field[4], type, 1] : [field[4], type, 0];
  }
}
// Fields whose zero value JSON omits: non-pointer scalars tagged omitempty, by message and number.
for (const dir of PROTO_DIRS) {
  const text = readFileSync(`${apiTree}/${dir}/types.go`, 'utf8');
  const pkg = /^package ([\w.]+);/m.exec(readFileSync(`${apiTree}/${dir}/generated.proto`, 'utf8'))[1];
  const prefix = protoName(`.${pkg}`);
  let struct;
  for (const line of text.split('\n')) {
    const start = /^type (\w+) struct \{/.exec(line);
    if (start !== null) {
      struct = start[1];
      continue;
    }
    const field = /^\s+\w+\s+(\S+)\s+`json:"([^"]*)" protobuf:"[a-z0-9]+,(\d+),/.exec(line);
    if (struct === undefined || field === null) continue;
    const layout = messages[`${prefix}.${struct}`];
    const entry = layout?.[field[3]];
    const scalar = /^(string|bool|u?int(8|16|32|64)?|float(32|64)|[A-Z]\w*)$/.test(field[1]);
    if (entry !== undefined && scalar && field[2].split(',').includes('omitempty') && SCALARS.has(entry[1])) entry[3] = 1;
  }
}
const layouts = {};
const pending = Object.keys(sorted).filter((name) => name in messages);
while (pending.length > 0) {
  const name = pending.pop();
  if (name in layouts) continue;
  layouts[name] = messages[name];
  for (const [, type] of Object.values(messages[name])) {
    const target = type.startsWith('map:') ? type.slice(4) : type;
    if (target in messages && !(target in layouts)) pending.push(target);
  }
}
writeFileSync(
  OUTPUT,
  [
    '// Generated by scripts/generate-kube-schemas.mjs from the OpenAPI document of Kubernetes v1.32',
    '// (kubernetes/kubernetes api/openapi-spec, Apache-2.0). Do not edit; run the generator again.',
    '',
    "/** KUBE_SCHEMAS_JSON is the JSON text of the built-in kinds' schemas, by OpenAPI component name. */",
    `export const KUBE_SCHEMAS_JSON = ${JSON.stringify(JSON.stringify(sorted))};`,
    '',
    '/** KUBE_PROTOBUF_JSON is the JSON text of the protobuf layouts: message → field number → [jsonName, type, repeated]. */',
    `export const KUBE_PROTOBUF_JSON = ${JSON.stringify(JSON.stringify(layouts))};`,
    '',
  ].join('\n'),
);
const external = new Set();
for (const layout of Object.values(layouts))
  for (const [, type] of Object.values(layout)) {
    const target = type.startsWith('map:') ? type.slice(4) : type;
    if (target.startsWith('io.k8s.') && !(target in layouts)) external.add(target);
  }
console.log(
  `${Object.keys(sorted).length} schemas, ${roots.length} kinds, ${Object.keys(layouts).length} protobuf messages; outside types: ${[...external].sort().join(' ')}`,
);
