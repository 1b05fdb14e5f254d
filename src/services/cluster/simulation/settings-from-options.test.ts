import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JOB_DURATION_OPTION, NODES_OPTION, POD_READY_DELAY_OPTION, WORKLOADS_OPTION } from '../options.ts';
import { simulationSettings } from './settings-from-options.ts';

describe('--workloads, --nodes, --pod-ready-delay, --job-duration', () => {
  it('reads the flags as fogbank start does (each option parses its flag into its key), and refuses bad values in words fit for a command line', () => {
    // The CLI's parser hands a family { [option.key]: option.parse(text) } (core/family-options.ts; src/cli/args.test.ts proves the parser).
    const familyOptions = {
      [WORKLOADS_OPTION.key]: WORKLOADS_OPTION.parse('simulate'),
      [NODES_OPTION.key]: NODES_OPTION.parse('3'),
      [POD_READY_DELAY_OPTION.key]: POD_READY_DELAY_OPTION.parse('250ms'),
      [JOB_DURATION_OPTION.key]: JOB_DURATION_OPTION.parse('2s'),
    };
    assert.deepEqual(simulationSettings({}, familyOptions), { workloads: { nodes: 3, podReadyDelayMs: 250, jobDurationMs: 2000 } });
    assert.throws(() => WORKLOADS_OPTION.parse('kwok'), { message: "--workloads must be none or simulate, not 'kwok'" });
    assert.throws(() => NODES_OPTION.parse('0'), { message: "--nodes must be a whole number from 1 to 1000, not '0'" });
    assert.throws(() => POD_READY_DELAY_OPTION.parse('1x'), {
      message: '--pod-ready-delay must be a duration such as 1s or 250ms: time: unknown unit "x" in duration "1x"',
    });
    assert.equal(JOB_DURATION_OPTION.parse('0'), 0);
  });

  it('runs no simulation by default (envtest), and takes start() options before the flags, with the defaults last', () => {
    assert.deepEqual(simulationSettings({}, {}), {});
    assert.deepEqual(simulationSettings({ workloads: 'none' }, { workloads: 'simulate' }), {});
    assert.deepEqual(simulationSettings({}, { workloads: 'simulate' }), { workloads: { nodes: 1, podReadyDelayMs: 1000, jobDurationMs: 1000 } });
    assert.deepEqual(simulationSettings({ workloads: 'simulate', nodes: 2 }, { nodes: 5 }), {
      workloads: { nodes: 2, podReadyDelayMs: 1000, jobDurationMs: 1000 },
    });
  });
});
