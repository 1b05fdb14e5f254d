/** Hash routing: every view has a deep link (`#/mail/<mailbox>/<id>`, `#/activity`, `#/control`). */
import { useEffect, useState } from 'preact/hooks';

/** Route is the decoded hash: its segments. */
export type Route = readonly string[];

/** parseHash decodes `#/a/b%2Fc` into ['a', 'b/c']. */
export function parseHash(hash: string): Route {
  return hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

/** href builds a link to a route. */
export function href(...segments: readonly string[]): string {
  return `#/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`;
}

/** useRoute is the current route, following hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parseHash(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
