import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_EMAIL, Authenticator, Principal, ScopeNames } from './auth.ts';

const expandScope = (scope: string): string => new ScopeNames().expand(scope);

describe('Authenticator', () => {
  const auth = new Authenticator('admin-token', [
    { token: 'reader', email: 'r@example.com', scopes: ['compute.readonly'], permissions: ['compute.instanceTemplates.get'] },
  ]);

  it('resolves the admin token to a principal with every scope and permission', () => {
    const identity = auth.identify('Bearer admin-token');
    assert.equal(identity.kind, 'principal');
    if (identity.kind !== 'principal') return;
    assert.equal(identity.principal.email, ADMIN_EMAIL);
    assert.ok(identity.principal.hasAnyScope(['https://www.googleapis.com/auth/anything']));
    assert.ok(identity.principal.hasPermission('compute.instanceTemplates.create'));
  });

  it('resolves a granted token, accepts the scheme in any case, and reads access_token', () => {
    for (const identity of [auth.identify('bearer reader'), auth.identify(undefined, 'reader')]) {
      assert.equal(identity.kind, 'principal');
      if (identity.kind === 'principal') assert.equal(identity.principal.email, 'r@example.com');
    }
  });

  it('tells no credential from a wrong one', () => {
    assert.deepEqual(auth.identify(undefined), { kind: 'anonymous' });
    assert.deepEqual(auth.identify(undefined, ''), { kind: 'anonymous' });
    assert.deepEqual(auth.identify('Bearer nope'), { kind: 'unknown-token' });
    assert.deepEqual(auth.identify('Basic dXNlcjpwYXNz'), { kind: 'unknown-token' });
    assert.deepEqual(auth.identify('Bearer'), { kind: 'unknown-token' });
  });
});

describe('Principal', () => {
  it('expands short scope names and matches exact and prefix permissions', () => {
    const principal = new Principal('p@example.com', ['compute'], ['compute.instanceTemplates.*', 'compute.networks.get']);
    assert.ok(principal.hasAnyScope([expandScope('compute')]));
    assert.ok(!principal.hasAnyScope([expandScope('cloud-platform')]));
    assert.ok(principal.hasPermission('compute.instanceTemplates.delete'));
    assert.ok(principal.hasPermission('compute.networks.get'));
    assert.ok(!principal.hasPermission('compute.networks.list'));
    assert.ok(!principal.hasPermission('compute.instanceTemplate'));
  });

  it('keeps full scope URLs as given', () => {
    assert.equal(expandScope('https://www.googleapis.com/auth/compute'), 'https://www.googleapis.com/auth/compute');
    assert.equal(expandScope('cloud-platform'), 'https://www.googleapis.com/auth/cloud-platform');
  });
});
