/**
 * The built-in kinds' schemas, parsed from the generated data file on first use (the family's
 * runtime is itself loaded on its first request, so neither start-up nor an idle server without
 * cluster traffic pays for them), and cut per kind to the types it reaches, so each group-version's
 * OpenAPI document holds only its own types.
 */
import type { Schema, SchemaSet } from '../apimachinery/schema.ts';
import { listSchema, META_SCHEMAS } from '../resources/meta-schemas.ts';
import { APIREGISTRATION_SCHEMAS } from './apiregistration-schemas.ts';
import { KUBE_SCHEMAS_JSON } from './kube-schemas.generated.ts';

let parsed: Readonly<Record<string, Schema>> | undefined;

/** kubeSchemas are every generated schema by component name, parsed once, with the apiregistration.k8s.io types described by hand. */
export function kubeSchemas(): Readonly<Record<string, Schema>> {
  parsed ??= { ...(JSON.parse(KUBE_SCHEMAS_JSON) as Record<string, Schema>), ...APIREGISTRATION_SCHEMAS };
  return parsed;
}

/** referencedNames lists the component names a schema refers to, directly. */
function referencedNames(schema: Schema, out: string[]): void {
  if ('$ref' in schema) {
    out.push(schema.$ref);
    return;
  }
  switch (schema.type) {
    case 'object':
      for (const property of Object.values(schema.properties)) referencedNames(property, out);
      return;
    case 'array':
      referencedNames(schema.items, out);
      return;
    case 'map':
      referencedNames(schema.values, out);
      return;
    default:
      return;
  }
}

/**
 * kindSchemaSet is the schema set of one kind: its type, its list type, everything they reach,
 * and the shared meta types. Throws if the generated data lacks the kind (a table/generator mismatch).
 */
export function kindSchemaSet(schemaName: string, listSchemaName: string, kind: string): SchemaSet {
  const all = kubeSchemas();
  if (all[schemaName] === undefined) throw new Error(`no generated schema for ${schemaName}`);
  const out: Record<string, Schema> = {};
  const queue = [schemaName];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (name in out || name in META_SCHEMAS) continue;
    const schema = all[name];
    if (schema === undefined) throw new Error(`schema ${name} is not defined`);
    out[name] = schema;
    referencedNames(schema, queue);
  }
  out[listSchemaName] = listSchema(`${kind}List`, schemaName, `${kind}List is a list of ${kind} objects.`);
  return { ...META_SCHEMAS, ...out };
}
