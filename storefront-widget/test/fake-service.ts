/**
 * A fake ServiceScan client script, faked at the script boundary: the widget
 * injects a real <script> tag; this module watches <head>, and "serves" it by
 * defining window.ServiceScan and firing load (or error), like a browser would.
 */
import type { ServiceScanCallback, ServiceScanFormConfig, ServiceScanNamespace } from "../src/types";

export type ScriptOutcome = "ok" | "network" | "script" | "hang";
export type GetIdMode = "sync" | "promise" | "callback-first" | "silent" | "throws";

export interface FakeForm {
  key: string;
  config: ServiceScanFormConfig & { callback?: ServiceScanCallback };
  attach: jest.Mock<void, [HTMLElement]>;
  getId: jest.Mock<string | Promise<string>, []>;
}

export interface FakeService {
  namespace: ServiceScanNamespace & { Form: jest.Mock };
  forms: FakeForm[];
  /** Every <script> the page injected, in order. */
  scripts: HTMLScriptElement[];
  /** How the next injected script "loads". */
  outcome: ScriptOutcome;
  /** Code the next getId() reports. */
  code: string | undefined;
  getIdMode: GetIdMode;
  /** Whether the fake sets its own iframe title. */
  titledFrame: boolean;
  /** Whether attach() inserts the iframe later (as some scripts do). */
  lateFrame: boolean;
  stop(): void;
}

let ids = 0;
const later = (fn: () => void, ms = 0) => setTimeout(fn, ms);

export function installFakeService(): FakeService {
  const svc: FakeService = {
    forms: [],
    scripts: [],
    outcome: "ok",
    code: "870",
    getIdMode: "sync",
    titledFrame: false,
    lateFrame: false,
    namespace: undefined as unknown as FakeService["namespace"],
    stop: () => observer.disconnect(),
  };

  const Form = jest.fn(({ key, config }: { key: string; config: FakeForm["config"] }) => {
    const form: FakeForm = {
      key,
      config,
      attach: jest.fn((el: HTMLElement) => {
        const add = () => {
          const frame = document.createElement("iframe");
          if (svc.titledFrame) frame.title = "ServiceScan card form";
          el.appendChild(frame);
        };
        if (svc.lateFrame) later(add, 5);
        else add();
      }),
      getId: jest.fn(() => {
        const id = `form-${++ids}`;
        const code = svc.code;
        const call = () => config.callback?.(id, code);
        switch (svc.getIdMode) {
          case "sync":
            later(call);
            return id;
          case "promise":
            return new Promise<string>((resolve) => later(() => (resolve(id), later(call)), 2));
          case "callback-first":
            // The callback arrives before the promised id does.
            later(call);
            return new Promise<string>((resolve) => later(() => resolve(id), 10));
          case "silent":
            return id;
          case "throws":
            throw new Error("getId failed");
        }
      }),
    };
    svc.forms.push(form);
    return form;
  });
  svc.namespace = { Form } as FakeService["namespace"];

  const serve = (script: HTMLScriptElement) => {
    const outcome = svc.outcome;
    later(() => {
      if (outcome == "hang") return;
      if (outcome == "ok") (window as { ServiceScan?: unknown }).ServiceScan = svc.namespace;
      script.dispatchEvent(new Event(outcome == "network" ? "error" : "load"));
    }, 1);
  };

  const observer = new MutationObserver((records) => {
    for (const r of records)
      r.addedNodes.forEach((n) => {
        if (n instanceof HTMLScriptElement && n.src) {
          svc.scripts.push(n);
          serve(n);
        }
      });
  });
  observer.observe(document.head, { childList: true });
  return svc;
}

/** Clean slate between specs: no global, no leftover tags. */
export function resetPage(): void {
  delete (window as { ServiceScan?: unknown }).ServiceScan;
  document.head.querySelectorAll("script").forEach((s) => s.remove());
  document.body.innerHTML = "";
}

let urls = 0;
/** A fresh script URL per spec, because the loader caches per URL for the page's lifetime. */
export const freshUrl = (): string => `https://checkout.servicescan.test/client-${++urls}.js`;
