import { PRECONFIGURED_EXPRESSION_SETS, WAF_RULE_SETS } from './constants.ts';

/**
 * preconfiguredExpressionSets is the answer of listPreconfiguredExpressionSets: the WAF sets the
 * rules language accepts, from the same list the checker uses, so what is listed is what passes.
 * Individual signature ids are not modelled; each set is listed by its id.
 */
export function preconfiguredExpressionSets(): Record<string, unknown> {
  return {
    preconfiguredExpressionSets: {
      wafRules: {
        expressionSets: [...PRECONFIGURED_EXPRESSION_SETS, ...WAF_RULE_SETS].map((id) => ({ id })),
      },
    },
  };
}
