/**
 * The protobuf form of `/openapi/v2` (`application/com.github.proto-openapi.spec.v2.v1.0+protobuf`,
 * what kubectl asks for): the Swagger document as gnostic's `openapi.v2.Document`, as the
 * apiserver's `ToProtoBinary` turns its JSON into one. Maps are ordered (name, value) pairs in the
 * JSON's order; `x-` members are vendor extensions; values without a message of their own
 * (`default`, `enum`, `example`, extensions) are `Any` carrying their YAML text — JSON text here,
 * which is YAML and reads back the same (kube-openapi reads it with yaml.Unmarshal).
 */
import { create, type MessageInitShape, toBinary } from '@bufbuild/protobuf';
import {
  DocumentSchema,
  type NamedAnySchema,
  type OperationSchema,
  type ParametersItemSchema,
  type PathItemSchema,
  type SchemaSchema,
} from './openapi-v2_pb.ts';

type Json = Record<string, unknown>;
type SchemaInit = MessageInitShape<typeof SchemaSchema>;
type NamedAnyInit = MessageInitShape<typeof NamedAnySchema>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function anyOf(value: unknown): { yaml: string } {
  return { yaml: JSON.stringify(value) };
}

function extensionsOf(record: Json): NamedAnyInit[] {
  return Object.entries(record)
    .filter(([key]) => key.startsWith('x-'))
    .map(([name, value]) => ({ name, value: anyOf(value) }));
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function bigintOr(value: unknown): bigint | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : undefined;
}

/** schemaOf is one Swagger schema as a gnostic Schema. */
export function schemaOf(schema: Json): SchemaInit {
  const init: SchemaInit = {
    Ref: text(schema['$ref']),
    format: text(schema['format']),
    title: text(schema['title']),
    description: text(schema['description']),
    pattern: text(schema['pattern']),
    required: strings(schema['required']),
    uniqueItems: schema['uniqueItems'] === true,
    exclusiveMaximum: schema['exclusiveMaximum'] === true,
    exclusiveMinimum: schema['exclusiveMinimum'] === true,
    readOnly: schema['readOnly'] === true,
    discriminator: text(schema['discriminator']),
    vendorExtension: extensionsOf(schema),
  };
  const numbers = { multipleOf: numberOr(schema['multipleOf']), maximum: numberOr(schema['maximum']), minimum: numberOr(schema['minimum']) };
  for (const [key, value] of Object.entries(numbers)) if (value !== undefined) init[key as keyof typeof numbers] = value;
  const counts = {
    maxLength: bigintOr(schema['maxLength']),
    minLength: bigintOr(schema['minLength']),
    maxItems: bigintOr(schema['maxItems']),
    minItems: bigintOr(schema['minItems']),
    maxProperties: bigintOr(schema['maxProperties']),
    minProperties: bigintOr(schema['minProperties']),
  };
  for (const [key, value] of Object.entries(counts)) if (value !== undefined) init[key as keyof typeof counts] = value;
  if (schema['default'] !== undefined) init.default = anyOf(schema['default']);
  if (schema['example'] !== undefined) init.example = anyOf(schema['example']);
  if (Array.isArray(schema['enum'])) init.enum = schema['enum'].map(anyOf);
  const type = schema['type'];
  if (typeof type === 'string') init.type = { value: [type] };
  else if (Array.isArray(type)) init.type = { value: strings(type) };
  const items = schema['items'];
  if (isRecord(items)) init.items = { schema: [schemaOf(items)] };
  else if (Array.isArray(items)) init.items = { schema: items.filter(isRecord).map(schemaOf) };
  if (Array.isArray(schema['allOf'])) init.allOf = schema['allOf'].filter(isRecord).map(schemaOf);
  const properties = schema['properties'];
  if (isRecord(properties)) {
    init.properties = {
      additionalProperties: Object.entries(properties)
        .filter((entry): entry is [string, Json] => isRecord(entry[1]))
        .map(([name, value]) => ({ name, value: schemaOf(value) })),
    };
  }
  const additional = schema['additionalProperties'];
  if (typeof additional === 'boolean') init.additionalProperties = { oneof: { case: 'boolean', value: additional } };
  else if (isRecord(additional)) init.additionalProperties = { oneof: { case: 'schema', value: schemaOf(additional) } };
  return init;
}

function parameterOf(parameter: Json): MessageInitShape<typeof ParametersItemSchema> {
  if (typeof parameter['$ref'] === 'string') return { oneof: { case: 'jsonReference', value: { Ref: parameter['$ref'] } } };
  const common = {
    name: text(parameter['name']),
    in: text(parameter['in']),
    description: text(parameter['description']),
    required: parameter['required'] === true,
  };
  if (parameter['in'] === 'body') {
    const body = { ...common, ...(isRecord(parameter['schema']) ? { schema: schemaOf(parameter['schema']) } : {}) };
    return { oneof: { case: 'parameter', value: { oneof: { case: 'bodyParameter', value: body } } } };
  }
  const sub = { ...common, type: text(parameter['type']), format: text(parameter['format']), uniqueItems: parameter['uniqueItems'] === true };
  const nonBody =
    parameter['in'] === 'path'
      ? ({ oneof: { case: 'pathParameterSubSchema', value: sub } } as const)
      : ({ oneof: { case: 'queryParameterSubSchema', value: sub } } as const);
  return { oneof: { case: 'parameter', value: { oneof: { case: 'nonBodyParameter', value: nonBody } } } };
}

function parametersOf(value: unknown): MessageInitShape<typeof ParametersItemSchema>[] {
  return Array.isArray(value) ? value.filter(isRecord).map(parameterOf) : [];
}

function operationOf(operation: Json): MessageInitShape<typeof OperationSchema> {
  const responses = isRecord(operation['responses']) ? operation['responses'] : {};
  return {
    tags: strings(operation['tags']),
    summary: text(operation['summary']),
    description: text(operation['description']),
    operationId: text(operation['operationId']),
    produces: strings(operation['produces']),
    consumes: strings(operation['consumes']),
    parameters: parametersOf(operation['parameters']),
    responses: {
      responseCode: Object.entries(responses)
        .filter((entry): entry is [string, Json] => isRecord(entry[1]))
        .map(([name, response]) => ({
          name,
          value: {
            oneof: {
              case: 'response',
              value: {
                description: text(response['description']),
                ...(isRecord(response['schema']) ? { schema: { oneof: { case: 'schema', value: schemaOf(response['schema']) } } } : {}),
                vendorExtension: extensionsOf(response),
              },
            },
          },
        })),
    },
    schemes: strings(operation['schemes']),
    deprecated: operation['deprecated'] === true,
    vendorExtension: extensionsOf(operation),
  };
}

const OPERATIONS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function pathItemOf(item: Json): MessageInitShape<typeof PathItemSchema> {
  const init: MessageInitShape<typeof PathItemSchema> = { parameters: parametersOf(item['parameters']), vendorExtension: extensionsOf(item) };
  for (const method of OPERATIONS) {
    const operation = item[method];
    if (isRecord(operation)) init[method] = operationOf(operation);
  }
  return init;
}

/** swaggerProtoOf encodes a Swagger 2.0 document as gnostic's `openapi.v2.Document`. */
export function swaggerProtoOf(document: Json): Uint8Array {
  const info = isRecord(document['info']) ? document['info'] : {};
  const paths = isRecord(document['paths']) ? document['paths'] : {};
  const definitions = isRecord(document['definitions']) ? document['definitions'] : {};
  const securityDefinitions = isRecord(document['securityDefinitions']) ? document['securityDefinitions'] : {};
  const message = create(DocumentSchema, {
    swagger: text(document['swagger']),
    info: { title: text(info['title']), version: text(info['version']), description: text(info['description']) },
    paths: {
      path: Object.entries(paths)
        .filter((entry): entry is [string, Json] => isRecord(entry[1]))
        .map(([name, item]) => ({ name, value: pathItemOf(item) })),
    },
    definitions: {
      additionalProperties: Object.entries(definitions)
        .filter((entry): entry is [string, Json] => isRecord(entry[1]))
        .map(([name, schema]) => ({ name, value: schemaOf(schema) })),
    },
    security: (Array.isArray(document['security']) ? document['security'] : []).filter(isRecord).map((requirement) => ({
      additionalProperties: Object.entries(requirement).map(([name, scopes]) => ({ name, value: { value: strings(scopes) } })),
    })),
    securityDefinitions: {
      additionalProperties: Object.entries(securityDefinitions)
        .filter((entry): entry is [string, Json] => isRecord(entry[1]) && entry[1]['type'] === 'apiKey')
        .map(([name, item]) => ({
          name,
          value: {
            oneof: {
              case: 'apiKeySecurity' as const,
              value: { type: 'apiKey', name: text(item['name']), in: text(item['in']), description: text(item['description']) },
            },
          },
        })),
    },
    vendorExtension: extensionsOf(document),
  });
  return toBinary(DocumentSchema, message);
}
