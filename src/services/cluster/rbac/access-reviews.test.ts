import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const GROUP = '/apis/authorization.k8s.io/v1';
const REVIEWS = [
  ['SelfSubjectAccessReview', `${GROUP}/selfsubjectaccessreviews`],
  ['SelfSubjectRulesReview', `${GROUP}/selfsubjectrulesreviews`],
  ['SubjectAccessReview', `${GROUP}/subjectaccessreviews`],
  ['LocalSubjectAccessReview', `${GROUP}/namespaces/default/localsubjectaccessreviews`],
] as const;
const TYPE_META = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

describe("access reviews check the body's type meta as the apiserver's decoder does", () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  for (const [kind, url] of REVIEWS) {
    it(`answers a ${kind} whose kind or apiVersion is not a string with 400, never reading it as text`, async () => {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ kind: { toString: [] } }, 'json: cannot unmarshal object into Go struct field .kind of type string'],
        [{ kind: 7 }, 'json: cannot unmarshal number into Go struct field .kind of type string'],
        [{ apiVersion: [] }, 'json: cannot unmarshal array into Go struct field .apiVersion of type string'],
        [[], `json: cannot unmarshal array into Go value of type ${TYPE_META}`],
        [5, `json: cannot unmarshal number into Go value of type ${TYPE_META}`],
      ];
      for (const [body, message] of cases) {
        const answer = await h.call('POST', url, body);
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.body.reason, 'BadRequest');
        assert.equal(answer.body.message, `couldn't get version/kind; json parse error: ${message}`);
      }
    });

    it(`answers a ${kind} body of another kind with the scheme's not-registered 400`, async () => {
      const answer = await h.call('POST', url, { kind: 'TokenReview' });
      assert.equal(answer.status, 400);
      assert.equal(
        answer.body.message,
        `TokenReview in version "v1" cannot be handled as a ${kind}: no kind "TokenReview" is registered for version "authorization.k8s.io/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
      );
    });
  }
});
