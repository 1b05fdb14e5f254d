import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { SCHEMA_COMPILERS } from './schema-compilers.ts';

describe('SCHEMA_COMPILERS', () => {
  it("still validates and serializes with Fastify's own compilers when a route declares a schema", async () => {
    const app = Fastify({ schemaController: { compilersFactory: SCHEMA_COMPILERS } });
    app.post(
      '/items',
      {
        schema: {
          body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
          response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
        },
      },
      async (request) => ({ name: (request.body as { name: string }).name, secret: 'not in the schema' }),
    );
    const valid = await app.inject({ method: 'POST', url: '/items', payload: { name: 'a' } });
    assert.equal(valid.statusCode, 200);
    assert.deepEqual(valid.json(), { name: 'a' });
    const invalid = await app.inject({ method: 'POST', url: '/items', payload: {} });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().message, "body must have required property 'name'");
    await app.close();
  });
});
