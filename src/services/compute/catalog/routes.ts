import type { FastifyInstance } from 'fastify';
import { arraySource } from '../shared/list-query.ts';
import { notFound } from '../shared/errors.ts';
import { registerAggregatedList } from '../shared/aggregated-route.ts';
import { listResponse } from '../shared/list-response.ts';
import { regionScope } from '../shared/locations.ts';
import { routeContext, type RouteContext } from '../shared/route-context.ts';
import { findImage, findImageByFamily, imagesOf, PUBLIC_IMAGE_PROJECTS } from './images.ts';
import { defaultSubnetworks, renderDefaultNetwork, renderDefaultSubnetwork } from './networks.ts';

/** authorizeImageRead lets everyone read public images (as `allAuthenticatedUsers` can) and checks IAM elsewhere. */
function authorizeImageRead(ctx: RouteContext, project: string, permission: string, resource: string): void {
  ctx.authorize({ write: false, permission: PUBLIC_IMAGE_PROJECTS.has(project) ? '' : permission, resource });
}

/** registerCatalogRoutes serves the read-only images and default-network catalog gcloud needs. */
export function registerCatalogRoutes(app: FastifyInstance): void {
  app.get('/projects/:project/global/images/family/:family', async (request) => {
    const ctx = routeContext(request);
    const { project, family } = ctx.params as { project: string; family: string };
    const path = `projects/${project}/global/images/family/${family}`;
    authorizeImageRead(ctx, project, 'compute.images.getFromFamily', path);
    const image = findImageByFamily(project, family);
    if (image === undefined) throw notFound(path);
    return image.render(ctx.links);
  });
  app.get('/projects/:project/global/images/:image', async (request) => {
    const ctx = routeContext(request);
    const { project, image: name } = ctx.params as { project: string; image: string };
    const path = `projects/${project}/global/images/${name}`;
    authorizeImageRead(ctx, project, 'compute.images.get', path);
    const image = findImage(project, name);
    if (image === undefined) throw notFound(path);
    return image.render(ctx.links);
  });
  app.get('/projects/:project/global/images', async (request) => {
    const ctx = routeContext(request);
    const project = ctx.params['project']!;
    authorizeImageRead(ctx, project, 'compute.images.list', `projects/${project}`);
    return listResponse(ctx, { kind: 'compute#imageList', path: `projects/${project}/global/images` }, async () =>
      imagesOf(project).map((image) => image.render(ctx.links)),
    );
  });
  app.get('/projects/:project/global/networks/:network', async (request) => {
    const ctx = routeContext(request);
    const { project, network } = ctx.params as { project: string; network: string };
    const path = `projects/${project}/global/networks/${network}`;
    ctx.authorize({ write: false, permission: 'compute.networks.get', resource: path });
    if (network !== 'default') throw notFound(path);
    return renderDefaultNetwork(project, ctx.links);
  });
  app.get('/projects/:project/global/networks', async (request) => {
    const ctx = routeContext(request);
    const project = ctx.params['project']!;
    ctx.authorize({ write: false, permission: 'compute.networks.list', resource: `projects/${project}` });
    return listResponse(ctx, { kind: 'compute#networkList', path: `projects/${project}/global/networks` }, async () => [
      renderDefaultNetwork(project, ctx.links),
    ]);
  });
  app.get('/projects/:project/regions/:region/subnetworks/:subnetwork', async (request) => {
    const ctx = routeContext(request);
    const { project, region, subnetwork } = ctx.params as { project: string; region: string; subnetwork: string };
    regionScope(region);
    const path = `projects/${project}/regions/${region}/subnetworks/${subnetwork}`;
    ctx.authorize({ write: false, permission: 'compute.subnetworks.get', resource: path });
    if (subnetwork !== 'default') throw notFound(path);
    return renderDefaultSubnetwork(project, region, ctx.links);
  });
  app.get('/projects/:project/regions/:region/subnetworks', async (request) => {
    const ctx = routeContext(request);
    const { project, region } = ctx.params as { project: string; region: string };
    regionScope(region);
    ctx.authorize({ write: false, permission: 'compute.subnetworks.list', resource: `projects/${project}/regions/${region}` });
    return listResponse(ctx, { kind: 'compute#subnetworkList', path: `projects/${project}/regions/${region}/subnetworks` }, async () => [
      renderDefaultSubnetwork(project, region, ctx.links),
    ]);
  });
  registerAggregatedList(app, {
    collection: 'subnetworks',
    kind: 'compute#subnetworkAggregatedList',
    permission: 'compute.subnetworks.list',
    // Keyed by region in name order, the order the paged source requires.
    source: () =>
      arraySource(
        [...defaultSubnetworks()].sort((a, b) => (a.region < b.region ? -1 : 1)),
        (subnet) => subnet.region,
      ),
    render: (subnet, links, project) => renderDefaultSubnetwork(project, subnet.region, links),
  });
}
