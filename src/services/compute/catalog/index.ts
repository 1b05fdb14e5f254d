export { registerCatalogRoutes } from './routes.ts';
export { resolveImagePath, PUBLIC_IMAGE_PROJECTS, type CatalogImage } from './images.ts';
export { networkPathExists, subnetRange, subnetworkPathExists } from './networks.ts';
