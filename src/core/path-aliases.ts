/**
 * A family that answers the same API under a second path prefix (the spec's spelling of a base
 * path, compute without its `/compute/v1`) declares it as an alias. Core rewrites an aliased path
 * to its canonical prefix before routing (core/server.ts, before the request reaches the family's
 * app), so every route is registered once: each alias would double its family's routes.
 *
 * The client's own path stays in `request.originalUrl`; everything that echoes a path back (error
 * texts, an upload session's `Location`, compute's self-links) reads it, so the answer is in the
 * spelling the client used.
 */

/** PathAlias is a prefix answered exactly as `canonical` is. */
export interface PathAlias {
  /** The prefix clients may send, e.g. `/mail/v1`. */
  readonly alias: string;
  /** The prefix the family's routes are registered under, e.g. `/gmail/v1`. */
  readonly canonical: string;
}

/**
 * aliasRewriter maps a request target to the one routed: a target whose path starts with an alias
 * (followed by `/`, `?` or nothing) gets the canonical prefix instead; any other comes back as it
 * is. Longer aliases win.
 */
export function aliasRewriter(aliases: readonly PathAlias[]): (url: string) => string {
  const ordered = [...aliases].sort((a, b) => b.alias.length - a.alias.length);
  return (url) => {
    for (const { alias, canonical } of ordered) {
      if (isUnderPrefix(url, alias)) return canonical + url.slice(alias.length);
    }
    return url;
  };
}

/** isUnderPrefix is true when a request target's path is `prefix` or goes on below it (`prefix/…`, or `prefix?…`). */
export function isUnderPrefix(target: string, prefix: string): boolean {
  if (!target.startsWith(prefix)) return false;
  const next = target.charCodeAt(prefix.length);
  // NaN (the end), '/' or '?'
  return Number.isNaN(next) || next === 0x2f || next === 0x3f;
}

/**
 * versionlessPrefix is an API base path without its version (`/gmail/v1` → `/gmail`,
 * `/upload/androidpublisher/v3` → `/upload/androidpublisher`): a family lists it among its
 * prefixes so that a version it does not serve (`/gmail/v2/…`) is still its own to answer, with
 * its 404 in its dialect, and not core's neutral answer.
 */
export function versionlessPrefix(base: string): string {
  return base.replace(/\/v\d+(?:(?:alpha|beta)\d*)?$/, '');
}
