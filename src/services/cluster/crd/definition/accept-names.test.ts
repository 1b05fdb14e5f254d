import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CustomResourceDefinition } from '../types.ts';
import { acceptNames } from './accept-names.ts';
import { defaultCustomResourceDefinition } from './defaults.ts';
import { fooCrd, widgetCrd } from './test-crds.ts';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';

function created(crd: CustomResourceDefinition): CustomResourceDefinition {
  return defaultCustomResourceDefinition(crd, undefined);
}

describe('acceptNames: the naming, establishing and API approval controllers', () => {
  it('accepts free names and establishes at once, as a single apiserver does', () => {
    const status = acceptNames(created(widgetCrd()), [], T0);
    assert.deepEqual(status, {
      conditions: [
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: T0 },
        { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: T0 },
      ],
      acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] },
      storedVersions: ['v1'],
    });
  });

  it('refuses names another CRD of the same group holds, with the conflict reason, and does not establish', () => {
    const holder = created(widgetCrd());
    holder.status = acceptNames(holder, [], T0);
    const rival = created(widgetCrd());
    rival.metadata.name = 'gadgets.example.com';
    rival.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['wd', 'widget'] };
    const status = acceptNames(rival, [holder], T1);
    assert.deepEqual(status.conditions, [
      {
        type: 'NamesAccepted',
        status: 'False',
        reason: 'ShortNamesConflict',
        message: '["wd" is already in use, "widget" is already in use]',
        lastTransitionTime: T1,
      },
      { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted', lastTransitionTime: T1 },
    ]);
    assert.deepEqual(status.acceptedNames, { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' });

    const sameKind = created(widgetCrd());
    sameKind.metadata.name = 'things.example.com';
    sameKind.spec.names = { plural: 'things', singular: 'thing', kind: 'Widget', listKind: 'ThingList' };
    assert.deepEqual(acceptNames(sameKind, [holder], T1).conditions?.[0], {
      type: 'NamesAccepted',
      status: 'False',
      reason: 'KindConflict',
      message: '"Widget" is already in use',
      lastTransitionTime: T1,
    });

    const otherGroup = created(widgetCrd());
    otherGroup.metadata.name = 'widgets.other.io';
    otherGroup.spec.group = 'other.io';
    assert.equal(acceptNames(otherGroup, [holder], T1).conditions?.[0]?.status, 'True');
  });

  it('keeps lastTransitionTime while a condition holds, and stays Established when names later conflict', () => {
    const crd = created(widgetCrd());
    crd.status = acceptNames(crd, [], T0);
    const again = acceptNames(crd, [], T1);
    assert.deepEqual(again.conditions, crd.status.conditions);
    const holder = created(fooCrd());
    holder.spec.group = 'example.com';
    holder.metadata.name = 'foos.example.com';
    holder.status = { acceptedNames: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList', shortNames: ['big'] } };
    crd.spec.names = { ...crd.spec.names, shortNames: ['wd', 'big'] };
    const renamed = acceptNames(crd, [holder], T1);
    assert.deepEqual(
      renamed.conditions?.map((condition) => [condition.type, condition.status, condition.reason, condition.lastTransitionTime]),
      [
        ['NamesAccepted', 'False', 'ShortNamesConflict', T1],
        ['Established', 'True', 'InitialNamesAccepted', T0],
      ],
    );
    assert.deepEqual(renamed.acceptedNames?.shortNames, ['wd']);
  });

  it('reports the API approval state of protected groups and records new storage versions', () => {
    const foo = created(fooCrd());
    const status = acceptNames(foo, [], T0);
    assert.deepEqual(status.conditions?.[2], {
      type: 'KubernetesAPIApprovalPolicyConformant',
      status: 'False',
      reason: 'UnapprovedAnnotation',
      message: 'not approved: "unapproved, experimental-only"',
      lastTransitionTime: T0,
    });
    const widget = created(widgetCrd());
    widget.status = { ...acceptNames(widget, [], T0) };
    widget.spec.versions = widget.spec.versions.map((version) => ({ ...version, storage: version.name === 'v1beta1' }));
    assert.deepEqual(acceptNames(widget, [], T1).storedVersions, ['v1', 'v1beta1']);
  });
});
