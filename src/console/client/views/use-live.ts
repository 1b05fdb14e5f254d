/** Hooks that tie a view to the live stream. */
import { useEffect, useRef } from 'preact/hooks';
import { type LiveEvent, onLive } from '../live.ts';

/** useLiveRefresh calls `refresh` (coalesced to one call per frame) when an event passes `wanted`, and on `reload`. */
export function useLiveRefresh(wanted: (event: LiveEvent) => boolean, refresh: () => void): void {
  const latest = useRef({ wanted, refresh });
  latest.current = { wanted, refresh };
  useEffect(() => {
    let queued = false;
    return onLive((event) => {
      if (event.type !== 'reload' && !latest.current.wanted(event)) return;
      if (queued) return;
      queued = true;
      queueMicrotask(() => {
        queued = false;
        latest.current.refresh();
      });
    });
  }, []);
}
