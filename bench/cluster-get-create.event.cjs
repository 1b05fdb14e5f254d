// setupRequest of bench/cluster-get-create.ts's Event create, loaded in each autocannon worker
// thread: a body naming a new Event (unique per thread and request).
const { threadId } = require('node:worker_threads');
let counter = 0;
module.exports = (request) => ({
  ...request,
  body: JSON.stringify({
    metadata: { name: `t${threadId}-${counter++}` },
    eventTime: '2025-01-01T00:00:00.000000Z',
    reportingController: 'example.com/bench',
    reportingInstance: 'bench-1',
    action: 'Measure',
    reason: 'Measured',
    type: 'Normal',
    note: 'a benchmark event',
    regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
  }),
});
