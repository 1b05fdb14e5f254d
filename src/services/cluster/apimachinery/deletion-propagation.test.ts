import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultOrphanWarning, finalizersForDeletion } from './deletion-propagation.ts';

const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };
const JOBS = { group: 'batch', version: 'v1', resource: 'jobs' };
const RCS = { group: '', version: 'v1', resource: 'replicationcontrollers' };

describe('DELETE propagation: the finalizers the generic store leaves on the object', () => {
  it('each policy swaps in its finalizer and keeps the others, in order', () => {
    assert.deepEqual(finalizersForDeletion(CONFIG_MAPS, ['a'], { policy: 'Foreground' }), ['a', 'foregroundDeletion']);
    assert.deepEqual(finalizersForDeletion(CONFIG_MAPS, ['foregroundDeletion', 'a'], { policy: 'Orphan' }), ['a', 'orphan']);
    assert.deepEqual(finalizersForDeletion(CONFIG_MAPS, ['orphan', 'a'], { policy: 'Background' }), ['a']);
    assert.equal(finalizersForDeletion(CONFIG_MAPS, ['a'], { policy: 'Background' }), undefined, 'unchanged');
  });

  it('orphanDependents wins over the policy; a finalizer present decides when neither is given; then the kind', () => {
    assert.deepEqual(finalizersForDeletion(CONFIG_MAPS, [], { orphanDependents: true, policy: 'Foreground' }), ['orphan']);
    assert.deepEqual(finalizersForDeletion(CONFIG_MAPS, ['foregroundDeletion'], { orphanDependents: false }), []);
    assert.equal(finalizersForDeletion(CONFIG_MAPS, ['foregroundDeletion'], {}), undefined);
    assert.equal(finalizersForDeletion(CONFIG_MAPS, [], {}), undefined);
    assert.deepEqual(finalizersForDeletion(JOBS, [], {}), ['orphan']);
    assert.deepEqual(finalizersForDeletion(RCS, [], {}), ['orphan']);
    assert.deepEqual(finalizersForDeletion(JOBS, [], { policy: 'Background' }), undefined);
  });

  it('the Job storage warns when a DELETE relies on its orphaning default', () => {
    assert.match(defaultOrphanWarning(JOBS, {}) ?? '', /^child pods are preserved by default when jobs are deleted/);
    assert.equal(defaultOrphanWarning(JOBS, { policy: 'Orphan' }), undefined);
    assert.equal(defaultOrphanWarning(RCS, {}), undefined);
    assert.equal(defaultOrphanWarning(CONFIG_MAPS, {}), undefined);
  });
});
