// setupRequest of bench/compute-insert-get.ts's insert + get cycle, loaded in each autocannon
// worker thread: a POST inserts a template under a new name (unique per thread and request), the
// GET after it reads that template back.
const { threadId } = require('node:worker_threads');
let counter = 0;
module.exports = (request, context) => {
  if (request.method === 'GET') return { ...request, path: `${request.path}/${context.name}` };
  context.name = `t${threadId}-${counter++}`;
  return {
    ...request,
    body: JSON.stringify({
      name: context.name,
      properties: {
        machineType: 'e2-small',
        disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
        networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ name: 'external-nat', type: 'ONE_TO_ONE_NAT' }] }],
      },
    }),
  };
};
