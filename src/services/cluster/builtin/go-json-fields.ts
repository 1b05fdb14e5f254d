/**
 * The built-in kinds' Go structs as encoding/json writes them (which members are always written,
 * which are left out when empty), generated from the k8s.io/api and k8s.io/apimachinery v0.32
 * declarations by scripts/generate-go-json-fields.mjs and parsed on first use.
 */
import { GoStructEncoder, type GoStructTable } from '../apimachinery/go-structs.ts';
import { GO_JSON_FIELDS_JSON } from './go-json-fields.generated.ts';

let parsed: GoStructTable | undefined;

/** builtinGoStructs writes objects of the built-in types (root component names as the schemas name them) as the apiserver does. */
export const builtinGoStructs = new GoStructEncoder(() => {
  parsed ??= JSON.parse(GO_JSON_FIELDS_JSON) as GoStructTable;
  return parsed;
});
