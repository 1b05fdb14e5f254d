import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aliasRewriter, versionlessPrefix } from './path-aliases.ts';

const routed = aliasRewriter([
  { alias: '/mail/v1', canonical: '/gmail/v1' },
  { alias: '/upload/mail/v1', canonical: '/upload/gmail/v1' },
  { alias: '/projects', canonical: '/compute/v1/projects' },
]);

test('an aliased prefix is routed as its canonical one, with the rest of the target kept', () => {
  assert.equal(routed('/mail/v1/users/me/messages/send?alt=json'), '/gmail/v1/users/me/messages/send?alt=json');
  assert.equal(routed('/upload/mail/v1/users/me/messages/send?uploadType=media'), '/upload/gmail/v1/users/me/messages/send?uploadType=media');
  assert.equal(routed('/projects/p/global/instanceTemplates'), '/compute/v1/projects/p/global/instanceTemplates');
});

test('the alias alone, or followed by a query, is aliased too', () => {
  assert.equal(routed('/mail/v1'), '/gmail/v1');
  assert.equal(routed('/mail/v1?x=1'), '/gmail/v1?x=1');
});

test('a path that merely starts with the same characters is not an alias', () => {
  assert.equal(routed('/mail/v10/users'), '/mail/v10/users');
  assert.equal(routed('/projectsx/p'), '/projectsx/p');
  assert.equal(routed('/gmail/v1/users/me/profile'), '/gmail/v1/users/me/profile');
  assert.equal(routed('/x/mail/v1'), '/x/mail/v1');
});

test('a base path without its version names every version of the API', () => {
  assert.equal(versionlessPrefix('/gmail/v1'), '/gmail');
  assert.equal(versionlessPrefix('/upload/androidpublisher/v3'), '/upload/androidpublisher');
  assert.equal(versionlessPrefix('/batch/compute/v1'), '/batch/compute');
  assert.equal(versionlessPrefix('/compute/v2beta1'), '/compute');
  assert.equal(versionlessPrefix('/_fogbank/publisher'), '/_fogbank/publisher');
});
