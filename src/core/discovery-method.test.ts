import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { discoveryMethod, PATH_PARAMETER, pathParameterNames, QUERY_STRING } from './discovery-method.ts';

describe('discoveryMethod derives a method’s path parameters from its path', () => {
  it('orders parameterOrder as the placeholders stand and lists every parameter by name', () => {
    const method = discoveryMethod('compute.regionThings.get', 'GET', 'projects/{project}/regions/{region}/things/{thing}', {
      parameters: { requestId: QUERY_STRING },
      response: 'Thing',
      scopes: ['s'],
    });
    assert.deepEqual(method.parameterOrder, ['project', 'region', 'thing']);
    assert.deepEqual(Object.keys(method.parameters), ['project', 'region', 'requestId', 'thing']);
    assert.deepEqual(method.parameters['thing'], PATH_PARAMETER);
    assert.equal(method.response, 'Thing');
    assert.equal('request' in method, false);
    assert.equal('mediaUpload' in method, false);
  });

  it('keeps path parameters first when asked, and lets a path parameter be restated (a default)', () => {
    const method = discoveryMethod('api.users.things.get', 'GET', 'api/v1/users/{userId}/things/{id}', {
      parameters: { userId: { ...PATH_PARAMETER, default: 'me' }, format: QUERY_STRING },
      scopes: [],
      pathParametersFirst: true,
    });
    assert.deepEqual(Object.keys(method.parameters), ['userId', 'id', 'format']);
    assert.deepEqual(method.parameters['userId'], { type: 'string', location: 'path', required: true, default: 'me' });
  });

  it('finds no placeholders in a path without any', () => {
    assert.deepEqual(pathParameterNames('projects/global/things'), []);
  });
});
