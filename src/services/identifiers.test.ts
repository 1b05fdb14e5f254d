import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Principal, ScopeNames } from '../core/auth.ts';
import { spellingOfAny } from '../core/identifiers.ts';
import { apiGroupVocabulary } from './cluster/identifiers.ts';
import { SECURITY_POLICY_TYPES } from './compute/identifiers.ts';
import { MAIL_API_PATH } from './mail/identifiers.ts';
import { PUBLISHER_API_PATH } from './publisher/identifiers.ts';
import { SERVICES } from './registry.ts';

/** names reads scope names with every family's declared spellings, as fogbank's Authenticator does. */
const names = new ScopeNames(SERVICES.flatMap((service) => service.scopes ?? []));

describe('identifier vocabularies', () => {
  it('read either spelling as the real value and remember which was used', () => {
    assert.deepEqual(SECURITY_POLICY_TYPES.read('EDGEGUARD_EDGE'), { canonical: 'CLOUD_ARMOR_EDGE', spelling: 'spec' });
    assert.deepEqual(SECURITY_POLICY_TYPES.read('CLOUD_ARMOR_NETWORK'), { canonical: 'CLOUD_ARMOR_NETWORK', spelling: 'real' });
    assert.equal(SECURITY_POLICY_TYPES.read('SOMETHING_ELSE'), undefined);
    assert.equal(SECURITY_POLICY_TYPES.canonical('SOMETHING_ELSE'), 'SOMETHING_ELSE');
  });

  it('spell the canonical value back in the spelling asked for, the real one by default', () => {
    assert.equal(SECURITY_POLICY_TYPES.spell('CLOUD_ARMOR'), 'CLOUD_ARMOR');
    assert.equal(SECURITY_POLICY_TYPES.spell('CLOUD_ARMOR', 'spec'), 'EDGEGUARD');
    assert.equal(SECURITY_POLICY_TYPES.spell('CLOUD_ARMOR_INTERNAL_SERVICE', 'spec'), 'EDGEGUARD_INTERNAL_SERVICE');
    assert.deepEqual(SECURITY_POLICY_TYPES.realValues(), ['CLOUD_ARMOR', 'CLOUD_ARMOR_EDGE', 'CLOUD_ARMOR_NETWORK', 'CLOUD_ARMOR_INTERNAL_SERVICE']);
  });

  it('tell the spelling of the first recognised value among several', () => {
    assert.equal(spellingOfAny(SECURITY_POLICY_TYPES, [undefined, 'nope', 'EDGEGUARD']), 'spec');
    assert.equal(spellingOfAny(SECURITY_POLICY_TYPES, [undefined]), undefined);
  });

  it('map the neutral API paths and scopes to the real ones', () => {
    assert.equal(MAIL_API_PATH.canonical('/mail/v1'), '/gmail/v1');
    assert.equal(PUBLISHER_API_PATH.canonical('/publisher/v3'), '/androidpublisher/v3');
    assert.equal(names.expand('https://www.googleapis.com/auth/publisher'), 'https://www.googleapis.com/auth/androidpublisher');
    assert.equal(names.expand('mail.send'), 'https://www.googleapis.com/auth/gmail.send');
    assert.equal(names.expand('gmail.send'), 'https://www.googleapis.com/auth/gmail.send');
  });

  it('let a grant in one spelling satisfy a requirement in the other', () => {
    const principal = new Principal('p@example.com', ['publisher'], [], [], undefined, names);
    assert.ok(principal.hasAnyScope(['https://www.googleapis.com/auth/androidpublisher']));
    assert.ok(principal.hasAnyScope(['https://www.googleapis.com/auth/publisher']));
    assert.ok(!principal.hasAnyScope(['https://www.googleapis.com/auth/gmail.send']));
  });

  it('map cluster group names under a configured domain to the k8s.io ones', () => {
    const groups = apiGroupVocabulary(['rbac.authorization', 'events'], 'example.io');
    assert.deepEqual(groups.read('events.example.io'), { canonical: 'events.k8s.io', spelling: 'spec' });
    assert.equal(groups.spell('rbac.authorization.k8s.io', 'spec'), 'rbac.authorization.example.io');
    assert.equal(apiGroupVocabulary(['events']).canonical('events.k8s.io'), 'events.k8s.io');
  });
});
