/**
 * The live web console (issue 29): a browser view over every family, served by fogbank itself
 * under `/_fogbank/console/`. It sits above the families (it reads the mail family's mailboxes,
 * the store's change feed, the control plane), so it is a layer of its own that src/fogbank.ts
 * adds to the served list; its routes and assets load on its first request, so start-up and idle
 * memory do not change.
 */
import type { ServiceDefinition } from '../core/service.ts';
import { controlErrorProblem } from '../services/control/public.ts';
import { renderConsoleError } from './server/errors.ts';
import { signInTicket } from './server/ticket.ts';

/** CONSOLE_PREFIX is where the console lives (longer than the admin API's `/_fogbank`, so it owns its paths). */
export const CONSOLE_PREFIX = '/_fogbank/console';

/** consoleService is the console as a family definition: its prefix, its error dialect (the admin API's), its banner line. */
export const consoleService: ServiceDefinition = {
  name: 'console',
  pathPrefixes: [CONSOLE_PREFIX],
  journaled: false,
  browserHome: `${CONSOLE_PREFIX}/`,
  renderError: renderConsoleError,
  errorBodyProblem: controlErrorProblem,
  // The one-time sign-in link: a line holding a URL under the console's address.
  banner: (site) => ({ apis: [{ name: 'console', baseUrl: `${site.url}${CONSOLE_PREFIX}/sign-in?ticket=${signInTicket(site.adminToken)}` }], clients: [] }),
  async register(app, context) {
    return (await import('./server/register.ts')).registerConsole(app, context);
  },
};

/** withConsole adds the console to a list of families (once). */
export function withConsole(services: readonly ServiceDefinition[]): readonly ServiceDefinition[] {
  return services.some((service) => service.name === consoleService.name) ? services : [...services, consoleService];
}
