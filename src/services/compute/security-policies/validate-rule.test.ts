import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '../shared/errors.ts';
import { decodeRule, defaultRule, preparePatchedRule, type RuleScope } from './prepare-rule.ts';
import { ACCEPTED_PATCHES, ALLOW_RULE, RULE_VALIDATION_CASES, type RuleValidationCase } from './testing/rule-validation-cases.ts';

function patch(row: Omit<RuleValidationCase, 'message'>) {
  const scope: RuleScope = {
    policyName: 'pol',
    policyType: row.policyType ?? 'CLOUD_ARMOR',
    scope: row.scope ?? 'regional',
    userDefinedFieldNames: ['f1'],
  };
  const stored = row.priority === 2147483647 ? defaultRule() : decodeRule(row.base ?? ALLOW_RULE, {});
  return preparePatchedRule(stored, row.body, row.updateMask, scope);
}

describe('patchRule validation: every rule of spec area A, with its exact message', () => {
  for (const row of RULE_VALIDATION_CASES) {
    it(row.name, () => {
      assert.throws(
        () => patch(row),
        (error: unknown) => {
          assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
          assert.equal(error.message, row.message);
          assert.equal(error.httpStatus, 400);
          return true;
        },
      );
    });
  }
});

describe('patchRule validation: accepted patches', () => {
  for (const row of ACCEPTED_PATCHES) {
    it(row.name, () => {
      const rule = patch(row);
      assert.equal(rule.kind, 'compute#securityPolicyRule');
      assert.equal(rule.priority, row.priority ?? 1000);
    });
  }
});
