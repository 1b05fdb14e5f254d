import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CustomResourceDefinitionVersion } from '../types.ts';
import { printerCells, printerColumns } from './printer-columns.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');

const certificateVersion: CustomResourceDefinitionVersion = {
  name: 'v1',
  served: true,
  storage: true,
  additionalPrinterColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Secret', type: 'string', jsonPath: '.spec.secretName' },
    { name: 'Issuer', type: 'string', priority: 1, jsonPath: '.spec.issuerRef.name' },
    { name: 'Status', type: 'string', priority: 1, jsonPath: '.status.conditions[?(@.type=="Ready")].message' },
    {
      name: 'Age',
      type: 'date',
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
      jsonPath: '.metadata.creationTimestamp',
    },
  ],
};

describe('printer columns of custom resources', () => {
  it('starts with Name and describes each column as the apiserver does', () => {
    const columns = printerColumns(certificateVersion);
    assert.deepEqual(
      columns.map((column) => [column.name, column.type, column.format, column.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Ready', 'string', '', 0],
        ['Secret', 'string', '', 0],
        ['Issuer', 'string', '', 1],
        ['Status', 'string', '', 1],
        ['Age', 'date', '', 0],
      ],
    );
    assert.equal(columns[1]?.description, 'Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status');
    assert.equal(columns[5]?.description, 'CreationTimestamp is a timestamp representing the server time when this object was created.');
  });

  it('fills cells through JSONPath filters, with null for what is missing and an age for dates', () => {
    const certificate = {
      metadata: { name: 'web', creationTimestamp: '2026-01-01T11:55:00Z' },
      spec: { secretName: 'web-tls', issuerRef: { name: 'ca' } },
      status: {
        conditions: [
          { type: 'Issuing', status: 'False' },
          { type: 'Ready', status: 'True', message: 'Certificate is up to date and has not expired' },
        ],
      },
    };
    assert.deepEqual(printerCells(certificateVersion, certificate, NOW), [
      'web',
      'True',
      'web-tls',
      'ca',
      'Certificate is up to date and has not expired',
      '5m',
    ]);
    assert.deepEqual(printerCells(certificateVersion, { metadata: { name: 'new' }, spec: {} }, NOW), ['new', null, null, null, null, null]);
  });

  it('types integer, number, boolean and date cells as the tableconvertor does', () => {
    const version: CustomResourceDefinitionVersion = {
      name: 'v1',
      served: true,
      storage: true,
      additionalPrinterColumns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
        { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
        { name: 'When', type: 'date', jsonPath: '.spec.when' },
        { name: 'Text', type: 'string', jsonPath: '.spec.replicas' },
        { name: 'Map', type: 'string', jsonPath: '.spec.map' },
        { name: 'Null', type: 'string', jsonPath: '.spec.nothing' },
        { name: 'Float', type: 'string', jsonPath: '.spec.ratio' },
      ],
    };
    const object = { metadata: { name: 'x' }, spec: { replicas: 3.9, ratio: 2500000.5, on: true, when: 'yesterday', map: { b: 1, a: '<' }, nothing: null } };
    assert.deepEqual(printerCells(version, object, NOW), ['x', 3, 2500000.5, true, '<invalid>', '3.9', '{"a":"\\u003c","b":1}', '<no value>', '2.5000005e+06']);
    const wrongTypes = { metadata: { name: 'y' }, spec: { replicas: '3', ratio: 'x', on: 'yes', when: 5 } };
    assert.deepEqual(printerCells(version, wrongTypes, NOW).slice(0, 5), ['y', null, null, null, null]);
  });

  it('shows Name and Age when a version declares no columns', () => {
    const plain: CustomResourceDefinitionVersion = { name: 'v1', served: true, storage: true };
    assert.deepEqual(
      printerColumns(plain).map((column) => [column.name, column.type]),
      [
        ['Name', 'string'],
        ['Age', 'date'],
      ],
    );
    assert.deepEqual(printerCells(plain, { metadata: { name: 'a', creationTimestamp: '2025-12-30T12:00:00Z' } }, NOW), ['a', '2d']);
  });

  it('gives a null cell for an index out of range and keeps the columns parsed before an unparsable one', () => {
    const version: CustomResourceDefinitionVersion = {
      name: 'v1',
      served: true,
      storage: true,
      additionalPrinterColumns: [
        { name: 'First', type: 'string', jsonPath: '.spec.items[3].name' },
        { name: 'Broken', type: 'string', jsonPath: '.spec.items[' },
        { name: 'After', type: 'string', jsonPath: '.spec.x' },
      ],
    };
    assert.deepEqual(
      printerColumns(version).map((column) => column.name),
      ['Name', 'First'],
    );
    assert.deepEqual(printerCells(version, { metadata: { name: 'z' }, spec: { items: [{ name: 'a' }] } }, NOW), ['z', null]);
  });
});
