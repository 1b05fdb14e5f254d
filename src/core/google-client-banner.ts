import type { BannerSection, BannerSite } from './service.ts';

/**
 * googleClientBanner is the banner section of an API that a googleapis Node client calls (mail,
 * publisher): its base URL and how to point the client here — `rootUrl` on the client, and again
 * in a media call's options (googleapis-common applies the client's rootUrl to metadata URLs
 * only) — with the admin token as an OAuth2 access token.
 */
export function googleClientBanner(site: BannerSite, name: string, basePath: string, factory: string): BannerSection {
  return {
    apis: [{ name, baseUrl: `${site.url}${basePath}/` }],
    clients: [
      {
        name: `${factory} (googleapis Node client)`,
        setup: [
          `const oauth = new auth.OAuth2(); oauth.setCredentials({ access_token: '${site.adminToken}' });`,
          `const api = ${factory}({ version: '${basePath.split('/').pop()!}', rootUrl: '${site.url}/', auth: oauth });`,
          `media calls: api.…(params, { rootUrl: '${site.url}/' })`,
        ],
      },
    ],
  };
}
