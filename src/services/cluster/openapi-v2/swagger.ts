/**
 * The Swagger 2.0 document of `/openapi/v2`, derived from the OpenAPI v3 documents of every
 * served group-version (so from the same schemas that validate requests, CRDs' included): one
 * document whose `definitions` are the union of the v3 components and whose `paths` are every
 * group-version's operations in v2 form. kubectl reads it (as protobuf) to validate what its
 * `/openapi/v3` lookup does not cover, above all the items of a `kind: List`.
 *
 * The v3 → v2 rules are those of the apiserver's two builders over the same types: `$ref`s point
 * at `#/definitions/`, a property's `allOf: [{$ref}]` wrapper is a plain `$ref` beside its
 * description, int-or-string is `type: string, format: int-or-string`, `nullable`/`oneOf`/`anyOf`/
 * `not` do not exist in v2; a request body is the `body` parameter, media types move to
 * `consumes`/`produces`, a parameter's schema moves onto the parameter.
 */

type Json = Record<string, unknown>;

const V3_PREFIX = '#/components/schemas/';
const V2_PREFIX = '#/definitions/';

/** PRODUCES are the media types every apiserver operation lists in v2. */
const PRODUCES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const WATCH_PRODUCES = [...PRODUCES, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const OPERATIONS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value['$ref'] === 'string' ? value['$ref'] : undefined;
}

function v2Ref(ref: string): string {
  return ref.startsWith(V3_PREFIX) ? V2_PREFIX + ref.slice(V3_PREFIX.length) : ref;
}

/** swaggerSchemaOf is one v3 schema in its v2 form. */
export function swaggerSchemaOf(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const out: Json = {};
  const allOf = schema['allOf'];
  const single = Array.isArray(allOf) && allOf.length === 1 ? refOf(allOf[0]) : undefined;
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case '$ref':
        out[key] = v2Ref(String(value));
        break;
      case 'allOf':
        // The v3 builder's wrapper of a property's $ref; any other allOf (a CRD's value validation) has no v2 form.
        if (single !== undefined) out['$ref'] = v2Ref(single);
        break;
      case 'oneOf':
      case 'anyOf':
      case 'not':
      case 'nullable':
        break;
      case 'properties':
        out[key] = isRecord(value) ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, swaggerSchemaOf(property)])) : value;
        break;
      case 'items':
      case 'additionalProperties':
        out[key] = typeof value === 'boolean' ? value : swaggerSchemaOf(value);
        break;
      default:
        out[key] = value;
    }
  }
  // A `$ref` stands alone in v2 but for its description: v3's `default: {}` beside it is the v3 builder's.
  if (out['$ref'] !== undefined) {
    const description = out['description'];
    return description === undefined ? { $ref: out['$ref'] } : { $ref: out['$ref'], description };
  }
  if (out['type'] === undefined && schema['x-kubernetes-int-or-string'] === true && schema['format'] === 'int-or-string') out['type'] = 'string';
  dropWhatKubectlCannotValidate(schema, out);
  return out;
}

/**
 * dropWhatKubectlCannotValidate applies the apiextensions-apiserver's ToStructuralOpenAPIV2 rules
 * (they matter for CRD schemas; the built-in ones never need them): a nullable value is untyped,
 * an object keeping unknown fields has no properties or type, an array without items no type,
 * and a nullable property is not required.
 */
function dropWhatKubectlCannotValidate(schema: Json, out: Json): void {
  if (schema['nullable'] === true) {
    delete out['type'];
    delete out['items'];
    delete out['properties'];
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) {
    delete out['items'];
    delete out['properties'];
  }
  if (out['type'] === 'array' && out['items'] === undefined) delete out['type'];
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && out['type'] === 'object') delete out['type'];
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  if (Array.isArray(out['required'])) {
    const required = out['required'].filter((name) => !(isRecord(properties[String(name)]) && (properties[String(name)] as Json)['nullable'] === true));
    const additional = schema['additionalProperties'];
    if ((isRecord(additional) && additional['nullable'] === true) || required.length === 0) delete out['required'];
    else out['required'] = required;
  }
}

function parameterOf(parameter: unknown): Json {
  if (!isRecord(parameter)) return {};
  const { schema, ...rest } = parameter;
  return { ...rest, ...(isRecord(schema) ? (swaggerSchemaOf(schema) as Json) : {}) };
}

function operationOf(operation: Json): Json {
  const { requestBody, responses, parameters, ...rest } = operation;
  const out: Json = {};
  const body = isRecord(requestBody) && isRecord(requestBody['content']) ? requestBody : undefined;
  const content = body === undefined ? undefined : (body['content'] as Json);
  let watch = false;
  const v2Responses: Json = {};
  for (const [code, response] of Object.entries(isRecord(responses) ? responses : {})) {
    if (!isRecord(response)) continue;
    const media = isRecord(response['content']) ? response['content'] : {};
    if (Object.keys(media).some((type) => type.includes('stream=watch'))) watch = true;
    const first = Object.values(media).find(isRecord);
    v2Responses[code] = {
      description: response['description'],
      ...(first !== undefined && first['schema'] !== undefined ? { schema: swaggerSchemaOf(first['schema']) } : {}),
    };
  }
  Object.assign(out, rest);
  if (content !== undefined) out['consumes'] = Object.keys(content);
  out['produces'] = watch ? WATCH_PRODUCES : PRODUCES;
  out['schemes'] = ['https'];
  const bodySchema = content === undefined ? undefined : Object.values(content).find(isRecord)?.['schema'];
  const v2Parameters = [
    ...(body === undefined
      ? []
      : [{ in: 'body', name: 'body', ...(body['required'] === true ? { required: true } : {}), schema: swaggerSchemaOf(bodySchema) }]),
    ...(Array.isArray(parameters) ? parameters.map(parameterOf) : []),
  ];
  return { ...out, ...(v2Parameters.length === 0 ? {} : { parameters: v2Parameters }), responses: v2Responses };
}

function pathItemOf(item: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(item)) {
    if ((OPERATIONS as readonly string[]).includes(key) && isRecord(value)) out[key] = operationOf(value);
    else if (key === 'parameters' && Array.isArray(value)) out[key] = value.map(parameterOf);
    else out[key] = value;
  }
  return out;
}

function sorted(record: Json): Json {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** swaggerDocumentOf is the `/openapi/v2` document of the given v3 group-version documents. */
export function swaggerDocumentOf(documents: readonly unknown[], version: string): Json {
  const paths: Json = {};
  const definitions: Json = {};
  for (const document of documents) {
    if (!isRecord(document)) continue;
    for (const [path, item] of Object.entries(isRecord(document['paths']) ? document['paths'] : {})) {
      if (isRecord(item)) paths[path] = pathItemOf(item);
    }
    const components = isRecord(document['components']) && isRecord(document['components']['schemas']) ? document['components']['schemas'] : {};
    for (const [name, schema] of Object.entries(components)) definitions[name] ??= swaggerSchemaOf(schema);
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version },
    paths: sorted(paths),
    definitions: sorted(definitions),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}
