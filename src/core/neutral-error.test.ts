import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TransportProblemError } from './errors.ts';
import { neutralErrorBodyProblem, renderNeutralError } from './neutral-error.ts';

describe("core's neutral answer for paths no family owns", () => {
  it('says of an unknown path what Google’s front end says, in the classic envelope without a status word', () => {
    const message = 'The requested URL /foo was not found on this server.';
    assert.deepEqual(renderNeutralError(new TransportProblemError({ httpStatus: 404, kind: 'not-found', detail: '/foo' })), {
      status: 404,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: { error: { code: 404, message, errors: [{ message, domain: 'global', reason: 'notFound' }] } },
    });
  });

  it('answers an oversized head 413 and anything unexpected 500, each in the same shape', () => {
    const head = renderNeutralError(new TransportProblemError({ httpStatus: 431, kind: 'headers-too-large', detail: 'too large' }));
    assert.equal(head.status, 413);
    assert.equal(neutralErrorBodyProblem(413, head.body), undefined);
    const crash = renderNeutralError(new Error('boom'));
    assert.equal(crash.status, 500);
    assert.equal(neutralErrorBodyProblem(500, crash.body), undefined);
  });

  it('tells a body of another shape from its own', () => {
    assert.equal(
      neutralErrorBodyProblem(404, {
        error: { code: 404, message: 'x', errors: [{ message: 'x', domain: 'global', reason: 'notFound' }], status: 'NOT_FOUND' },
      }),
      'members [code,message,errors,status], expected [code,message,errors]',
    );
    assert.equal(neutralErrorBodyProblem(404, { kind: 'Status' }), 'not {"error":{…}}');
    assert.equal(neutralErrorBodyProblem(400, { error: { code: 404, message: 'x', errors: [] } }), 'code 404 is not the HTTP status 400');
  });
});
