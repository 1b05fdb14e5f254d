import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import type { CustomResourceDefinition } from '../types.ts';
import { acceptNames } from './accept-names.ts';
import { defaultCustomResourceDefinition } from './defaults.ts';
import { printerCells, printerColumns } from './printer-columns.ts';
import { validateCustomResourceDefinition } from './validate-definition.ts';

function fixture(name: string): CustomResourceDefinition {
  return parse(readFileSync(new URL(`../../../../../test/fixtures/crds/${name}`, import.meta.url), 'utf8')) as CustomResourceDefinition;
}

describe('the real-world CRD fixtures', () => {
  for (const name of ['sample-controller-foo.yaml', 'cert-manager-certificate.yaml', 'widget.yaml']) {
    it(`${name} is a valid CRD whose names are accepted`, () => {
      const crd = fixture(name);
      assert.deepEqual(validateCustomResourceDefinition(crd, undefined).map(fieldErrorText), []);
      const status = acceptNames(defaultCustomResourceDefinition(crd, undefined), [], '2026-01-01T00:00:00Z');
      assert.ok(status.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True'));
    });
  }

  it("prints a Certificate with cert-manager's columns (filters written with spaces)", () => {
    const version = fixture('cert-manager-certificate.yaml').spec.versions[0]!;
    assert.deepEqual(
      printerColumns(version).map((column) => `${column.name}:${column.priority}`),
      ['Name:0', 'Ready:0', 'Secret:0', 'Issuer:1', 'Status:1', 'Age:0'],
    );
    const certificate = {
      metadata: { name: 'example-com', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { secretName: 'example-com-tls', issuerRef: { name: 'letsencrypt' } },
      status: { conditions: [{ type: 'Ready', status: 'False', message: 'Issuing certificate as Secret does not exist' }] },
    };
    assert.deepEqual(printerCells(version, certificate, Date.parse('2026-01-01T03:00:00Z')), [
      'example-com',
      'False',
      'example-com-tls',
      'letsencrypt',
      'Issuing certificate as Secret does not exist',
      '3h',
    ]);
  });
});
