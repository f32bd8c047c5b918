import { ServiceScanError, ServiceScanLoadError, ServiceScanTimeoutError } from "./errors.js";
import { loadServiceScan } from "./loader.js";
import type { ServiceScanFormClient, ServiceScanFormConfig, ServiceScanSubmitResult } from "./types.js";

/** Internal: the framework-free part of the widget, one instance per attached container. */
export interface MountedForm {
  /** Settles when the form is attached (or rejects with a ServiceScanLoadError). */
  ready: Promise<void>;
  submit(): Promise<ServiceScanSubmitResult>;
  /** Moves focus into the form's iframe, where the shopper fixes the problem. */
  focus(): void;
  destroy(): void;
}

export interface MountOptions {
  clientScriptUrl: string;
  shareableKey: string;
  config: ServiceScanFormConfig;
  timeoutMs: number;
  frameTitle: string;
}

type Waiting = { id?: string; resolve(code: string): void; reject(error: unknown): void };

const frameIn = (el: HTMLElement) => el.querySelector("iframe");

export function mountForm(el: HTMLElement, o: MountOptions): MountedForm {
  let form: ServiceScanFormClient | undefined;
  let destroyed = false;
  let observer: MutationObserver | undefined;
  let inflight: Promise<ServiceScanSubmitResult> | undefined;
  let waiting: Waiting | undefined;
  // Codes whose callback came before getId() told us the id (getId may answer with a promise).
  const early = new Map<string, string>();

  const callback = (formId: string, responseCode?: string) => {
    const code = String(responseCode ?? "");
    if (waiting && waiting.id === formId) waiting.resolve(code);
    else early.set(formId, code);
  };

  // Screen readers name an iframe by its title; add one only if the script did not.
  const titleFrame = () => {
    const frame = frameIn(el);
    if (frame && !frame.title) frame.title = o.frameTitle;
    return frame;
  };

  const ready = loadServiceScan(o.clientScriptUrl).then((ns) => {
    if (destroyed) return;
    try {
      form = ns.Form({ key: o.shareableKey, config: { ...o.config, callback } });
      form.attach(el);
    } catch (e) {
      form = undefined;
      throw new ServiceScanLoadError("script", o.clientScriptUrl, e);
    }
    // The script may insert its iframe later than attach() returns.
    if (!titleFrame()) {
      observer = new MutationObserver(() => titleFrame() && observer!.disconnect());
      observer.observe(el, { childList: true, subtree: true });
    }
  });

  const run = async (): Promise<ServiceScanSubmitResult> => {
    await ready;
    const f = form;
    if (!f) throw new ServiceScanError("The ServiceScan form is not mounted");
    early.clear();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await new Promise<ServiceScanSubmitResult>((resolve, reject) => {
        timer = setTimeout(() => reject(new ServiceScanTimeoutError(o.timeoutMs)), o.timeoutMs);
        const w: Waiting = { resolve: () => {}, reject };
        waiting = w;
        // Promise.resolve() turns a synchronous throw from getId() into a rejection too.
        Promise.resolve()
          .then(() => f.getId())
          .then((formId) => {
            w.id = formId;
            w.resolve = (responseCode) => resolve({ formId, responseCode });
            const code = early.get(formId);
            if (code !== undefined) w.resolve(code);
          }, reject);
      });
    } finally {
      clearTimeout(timer);
      waiting = undefined;
    }
  };

  return {
    ready,
    // One submission at a time: a double click gets the same answer instead of a second getId().
    submit: () => (inflight ||= run().finally(() => (inflight = undefined))),
    focus: () => frameIn(el)?.focus(),
    destroy() {
      destroyed = true;
      form = undefined;
      observer?.disconnect();
      waiting?.reject(new ServiceScanError("The ServiceScan form was unmounted"));
      // Drop the script's iframe so a remount (or React StrictMode's re-run) attaches to an empty element.
      el.textContent = "";
    },
  };
}
