import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
const requireWhenNeeded = createRequire(import.meta.url);

/**
 * SCHEMA_COMPILERS are Fastify's own validator and serializer compilers (Ajv and
 * fast-json-stringify), loaded only if a route ever declares a JSON schema. fogbank's families
 * validate requests themselves, in each service's dialect, so none does; yet Fastify loads and
 * builds both compilers for every server it creates unless it is given the factories. Measured
 * with bench/startup.ts, building them was ~9 ms of start-up, and bundling their ~300 KB
 * (scripts/bundle-options.mjs keeps them out of the bundle) cost parse time and idle memory.
 */
export const SCHEMA_COMPILERS: CompilersFactory = {
  buildValidator: factoryLoadedOnFirstCall<NonNullable<CompilersFactory['buildValidator']>>('@fastify/ajv-compiler'),
  buildSerializer: factoryLoadedOnFirstCall<NonNullable<CompilersFactory['buildSerializer']>>('@fastify/fast-json-stringify-compiler'),
};

/**
 * factoryLoadedOnFirstCall is the named package's factory (its export builds the factory), required
 * when first called. F is the factory's type as Fastify declares it; the package is trusted to export it.
 */
function factoryLoadedOnFirstCall<F extends (...args: never[]) => unknown>(name: string): F {
  let factory: F | undefined;
  const loading = (...args: Parameters<F>): unknown => {
    factory ??= (requireWhenNeeded(name) as () => F)();
    return factory(...args);
  };
  return loading as F;
}
