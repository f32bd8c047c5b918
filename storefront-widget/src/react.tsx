import {
  forwardRef,
  useCallback,
  useEffect,
  useImperativeHandle,
  useRef,
  useState,
  useId,
  type ForwardedRef,
} from "react";
import { ServiceScanError, type ServiceScanLoadError } from "./errors.js";
import { mountForm, type MountedForm } from "./form.js";
import { describeResponseCode, serviceScanMessages, withMessages, type ServiceScanMessages } from "./messages.js";
import type {
  ServiceScanFormConfig,
  ServiceScanPaymentSessionLike,
  ServiceScanSavedCard,
  ServiceScanSessionData,
  ServiceScanSubmitResult,
} from "./types.js";

/** Options of {@link useServiceScanForm}. */
export interface UseServiceScanFormOptions {
  /** URL of the client script. Nothing loads while it (or the key) is missing, e.g. before the session exists. */
  clientScriptUrl: string | null | undefined;
  /** The shareable (browser) API key. */
  shareableKey: string | null | undefined;
  /** Form options. Compared by value, so an inline object does not re-create the form on each render. */
  config?: ServiceScanFormConfig;
  /** How long `submit()` waits for the form's response code (default 15000 ms). */
  timeoutMs?: number;
  /** `title` for the iframe when the script did not set one. */
  frameTitle?: string;
  /** Called once the form is attached and ready for input. */
  onReady?: () => void;
  /** Called when the script or form could not be loaded. */
  onError?: (error: ServiceScanLoadError) => void;
}

/** Lifecycle of the form: `idle` until a script URL and key are given. */
export type ServiceScanFormStatus = "idle" | "loading" | "ready" | "error";

/** What {@link useServiceScanForm} returns. */
export interface ServiceScanFormController {
  /** Put this on an empty element (e.g. `<div ref={form.ref} />`); the form is attached inside it. */
  ref: (element: HTMLElement | null) => void;
  /** Where the form is in its lifecycle; `ready` once attached. */
  status: ServiceScanFormStatus;
  /** The load error when `status` is `error`. */
  error: ServiceScanLoadError | undefined;
  /**
   * Submits the form: calls `getId()` and resolves with the form id and response code
   * (`"870"` is valid). Waits for the form to be ready first. Concurrent calls share
   * one submission. Rejects with `ServiceScanTimeoutError` if no code arrives in time,
   * or `ServiceScanLoadError` if the form never loaded.
   */
  submit(): Promise<ServiceScanSubmitResult>;
  /** Moves focus into the form. */
  focus(): void;
}

/** The recommended form options, used when the session carries none. */
const DEFAULT_CONFIG: ServiceScanFormConfig = { uiVersion: 2, showExplanation: false, showResult: false };

/**
 * Loads the client script and attaches the hosted form to the element given
 * to `ref`, once per element, and empties the element on unmount.
 *
 * Why it attaches once under React StrictMode: the attach only ever happens
 * after the script promise settles (a microtask at the earliest), and an
 * effect cleanup that runs before that (StrictMode's simulated unmount, or a
 * real one) cancels it; the cleanup also empties the element, so a later
 * mount attaches into an empty container.
 */
export function useServiceScanForm(options: UseServiceScanFormOptions): ServiceScanFormController {
  const { clientScriptUrl: url, shareableKey: key, timeoutMs = 15000, frameTitle } = options;
  const [el, setEl] = useState<HTMLElement | null>(null);
  const [state, setState] = useState<{ status: ServiceScanFormStatus; error?: ServiceScanLoadError }>({
    status: "idle",
  });
  const mounted = useRef<MountedForm>();
  // Latest callbacks, so passing new functions each render does not re-attach the form.
  const handlers = useRef(options);
  handlers.current = options;
  // By value: an inline `config={{...}}` is a new object every render.
  const configKey = JSON.stringify(options.config || DEFAULT_CONFIG);

  useEffect(() => {
    if (!el || !url || !key) return setState((s) => (s.status == "idle" ? s : { status: "idle" }));
    let live = true;
    setState({ status: "loading" });
    const form = (mounted.current = mountForm(el, {
      clientScriptUrl: url,
      shareableKey: key,
      config: JSON.parse(configKey) as ServiceScanFormConfig,
      timeoutMs,
      frameTitle: frameTitle || serviceScanMessages.frameTitle,
    }));
    form.ready.then(
      () => {
        if (!live) return;
        setState({ status: "ready" });
        handlers.current.onReady?.();
      },
      (error: ServiceScanLoadError) => {
        if (!live) return;
        setState({ status: "error", error });
        handlers.current.onError?.(error);
      },
    );
    return () => {
      live = false;
      form.destroy();
      if (mounted.current === form) mounted.current = undefined;
    };
  }, [el, url, key, configKey, timeoutMs, frameTitle]);

  const submit = useCallback(
    () =>
      mounted.current
        ? mounted.current.submit()
        : Promise.reject(new ServiceScanError("The ServiceScan form is not mounted")),
    [],
  );
  const focus = useCallback(() => mounted.current?.focus(), []);
  return { ref: setEl, status: state.status, error: state.error, submit, focus };
}

/** Methods reachable through the `ref` of {@link ServiceScanCardForm}. */
export interface ServiceScanCardFormHandle {
  /**
   * Submits the form (see {@link ServiceScanFormController.submit}). When the
   * code is not `"870"` the component also announces the problem and moves
   * focus to the form before resolving.
   */
  submit(): Promise<ServiceScanSubmitResult>;
  /** Moves focus into the form. */
  focus(): void;
}

/** Props of {@link ServiceScanCardForm}. */
export interface ServiceScanCardFormProps {
  /**
   * The ServiceScan payment session from Medusa
   * (`cart.payment_collection.payment_sessions.find(s => s.provider_id === "pp_servicescan_servicescan")`).
   * The form loads once its `data` has `client_script_url` and `shareable_key`.
   */
  session: ServiceScanPaymentSessionLike | null | undefined;
  /** Called once the form is ready for input. */
  onReady?: () => void;
  /** Called when the client script could not be loaded (the component also shows `messages.loadFailed`). */
  onError?: (error: ServiceScanLoadError) => void;
  /** Class of the wrapping element. */
  className?: string;
  /** Replacement texts (another language); missing keys fall back to English. */
  messages?: Partial<ServiceScanMessages>;
  /** How long `submit()` waits for the form's response code (default 15000 ms). */
  timeoutMs?: number;
}

const str = (v: unknown): string | undefined => (typeof v == "string" && v ? v : undefined);

/**
 * The hosted card form (with its card scanner) for a Medusa payment session,
 * plus a polite live region that announces validation problems. Get
 * `submit()` through `ref` and pass the ref's value to `payWithServiceScan`.
 * Renders only empty containers on the server.
 */
export const ServiceScanCardForm = forwardRef(function ServiceScanCardForm(
  { session, onReady, onError, className, messages, timeoutMs }: ServiceScanCardFormProps,
  ref: ForwardedRef<ServiceScanCardFormHandle>,
) {
  const data = (session?.data || {}) as Partial<Record<keyof ServiceScanSessionData, unknown>>;
  const m = withMessages(messages);
  const form = useServiceScanForm({
    clientScriptUrl: str(data.client_script_url),
    shareableKey: str(data.shareable_key),
    config: (data.form_config as ServiceScanFormConfig | undefined) || DEFAULT_CONFIG,
    timeoutMs,
    frameTitle: m.frameTitle,
    onReady,
    onError,
  });
  // `n` counts attempts: the message element is keyed by it, so the same text after another attempt is
  // a new node in the live region and is announced again (equal state alone would not even re-render).
  const [notice, setNotice] = useState({ text: "", n: 0 });
  // What the region shows, readable from the handle; silence after silence is no update at all.
  const shown = useRef("");
  const say = (text: string) => {
    if (!text && !shown.current) return;
    shown.current = text;
    setNotice((prev) => ({ text, n: prev.n + 1 }));
  };
  const { submit, focus } = form;

  useImperativeHandle(
    ref,
    () => ({
      async submit() {
        let result: ServiceScanSubmitResult;
        try {
          result = await submit();
        } catch (e) {
          // No code this time (timeout, unmount, load failure): an earlier validation message no longer applies.
          say("");
          throw e;
        }
        const ok = result.responseCode == "870";
        say(ok ? "" : describeResponseCode(result.responseCode, m));
        // The iframe is cross-origin, so its field can't be targeted; focusing the frame puts the shopper back in the form.
        if (!ok) focus();
        return result;
      },
      focus,
    }),
    // `m` is rebuilt each render; its content is what matters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [submit, focus, JSON.stringify(m)],
  );

  const text = form.status == "error" ? m.loadFailed : notice.text;
  return (
    <div className={className}>
      <div ref={form.ref} />
      {/* The region itself stays put (screen readers watch it from when it appears); only its content is replaced. */}
      <div aria-live="polite">{text && <span key={notice.n}>{text}</span>}</div>
    </div>
  );
});

/** Props of {@link ServiceScanSavedCards}. */
export interface ServiceScanSavedCardsProps {
  /** The customer's cards: `payment_methods` of `GET /store/servicescan/payment-methods`. */
  cards: readonly ServiceScanSavedCard[];
  /** The chosen card's id; `""` for a new card typed into the form. */
  value: string;
  onChange(id: string): void;
  /** Whether "Save this card" is ticked (offered with a new card only). */
  save: boolean;
  onSaveChange(save: boolean): void;
  /** A problem to announce here, e.g. a payment with the chosen card that failed. */
  error?: string | null;
  /** Replacement texts (another language); missing keys fall back to English. */
  messages?: Partial<ServiceScanMessages>;
}

/**
 * For a signed-in shopper: a radio group of their saved cards and "Use another
 * card", and, with a new card, the "Save this card" checkbox. Native inputs,
 * so it is keyboard accessible as is (Tab to the group, arrows to choose,
 * Space to tick); `error` is announced by a polite live region. Render the
 * card form only while `value` is empty.
 */
export function ServiceScanSavedCards(p: ServiceScanSavedCardsProps) {
  const m = withMessages(p.messages);
  const name = useId();
  const radio = (id: string, label: string) => (
    <label key={id}>
      <input type="radio" name={name} checked={p.value == id} onChange={() => p.onChange(id)} /> {label}
    </label>
  );
  return (
    <fieldset>
      <legend>{m.payWith}</legend>
      {p.cards.map((c) => radio(c.id, `${c.brand || m.card} ${m.endingIn} ${c.last4}`))}
      {radio("", m.newCard)}
      {!p.value && (
        <label>
          <input type="checkbox" checked={p.save} onChange={(e) => p.onSaveChange(e.target.checked)} /> {m.saveCard}
        </label>
      )}
      <div aria-live="polite">{p.error}</div>
    </fieldset>
  );
}
