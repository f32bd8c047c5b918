import { ServiceScanLoadError, type ServiceScanLoadErrorKind } from "./errors.js";
import type { ServiceScanNamespace } from "./types.js";

/** Options of {@link loadServiceScan}. */
export interface LoadServiceScanOptions {
  /** Give up after this many milliseconds (default 15000). The first concurrent call's value is used. */
  timeoutMs?: number;
}

type WithServiceScan = { ServiceScan?: ServiceScanNamespace };

// One promise per URL: concurrent callers share it; it is dropped on failure so the next call retries.
const loads = new Map<string, Promise<ServiceScanNamespace>>();
// Page-owned tags that failed: left in place (they are not ours to remove), but a retry must not wait on them again.
const failedTags = new WeakSet<HTMLScriptElement>();

const loaded = (): ServiceScanNamespace | undefined => {
  const ns = (window as WithServiceScan).ServiceScan;
  return ns && typeof ns.Form === "function" ? ns : undefined;
};

/**
 * Loads the ServiceScan client script once per URL and resolves with the
 * `ServiceScan` namespace. Concurrent calls share one `<script>` tag. On
 * failure the promise rejects with a {@link ServiceScanLoadError}, the failed
 * tag is removed if the loader added it, and a later call tries again (with a
 * tag of its own).
 *
 * Reuses the global when the page already has it, and reuses a matching
 * `<script>` tag already in the page instead of adding a second one.
 * Rejects with kind `ssr` (without touching anything) when there is no `document`.
 */
export function loadServiceScan(
  clientScriptUrl: string,
  { timeoutMs = 15000 }: LoadServiceScanOptions = {},
): Promise<ServiceScanNamespace> {
  if (typeof document == "undefined") return Promise.reject(new ServiceScanLoadError("ssr", clientScriptUrl));
  let load = loads.get(clientScriptUrl);
  if (!load) {
    load = new Promise<ServiceScanNamespace>((resolve, reject) => {
      const ready = loaded();
      if (ready) return resolve(ready);
      // `src` is the resolved URL, the attribute is what was written: match either form.
      let script = [...document.scripts].find(
        (s) => !failedTags.has(s) && (s.src == clientScriptUrl || s.getAttribute("src") == clientScriptUrl),
      );
      const ours = !script;
      if (!script) {
        script = document.createElement("script");
        script.src = clientScriptUrl;
        script.async = true;
        document.head.appendChild(script);
      }
      const tag = script;
      // Settles once, whichever of load, error and the timeout comes first; the later ones do nothing
      // (a late event must not drop a newer load of the same URL from `loads`).
      let settled = false;
      const done = (kind?: ServiceScanLoadErrorKind) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const ns = loaded();
        if (!kind && ns) return resolve(ns);
        // Only a tag we added is removed; the retry then injects a fresh one instead of finding this one.
        // The page's own tag stays (the page may hold or re-use it) and is skipped by the retry instead.
        if (ours) tag.remove();
        else failedTags.add(tag);
        loads.delete(clientScriptUrl);
        reject(new ServiceScanLoadError(kind || "script", clientScriptUrl));
      };
      const timer = setTimeout(() => done("timeout"), timeoutMs);
      // Listeners, not onload/onerror, so a page-owned tag's own handlers are left alone.
      tag.addEventListener("load", () => done());
      tag.addEventListener("error", () => done("network"));
    });
    loads.set(clientScriptUrl, load);
  }
  return load;
}
