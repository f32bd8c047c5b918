/**
 * Options of the hosted form (`config` of `ServiceScan.Form`). The provider
 * sends these in the payment session's `data.form_config`.
 */
export interface ServiceScanFormConfig {
  /** Form UI version; `2` is recommended. */
  uiVersion?: number;
  /** Whether the form shows its own explanation text; `false` is recommended. */
  showExplanation?: boolean;
  /** Whether the form shows its own validation result; `false` is recommended (the widget announces it). */
  showResult?: boolean;
  /** Passed to the processor's tokenization request `id` (max 25 characters). */
  id?: string;
  /** Passed to the processor's tokenization request `customerId` (max 50 characters). */
  customerId?: string;
  /** Passed to the processor's tokenization request `reportGroup`. */
  reportGroup?: string;
}

/** Called by the hosted form after `getId()`, with the form id and its validation response code. */
export type ServiceScanCallback = (formId: string, responseCode?: string) => void;

/** A form created by `ServiceScan.Form`. */
export interface ServiceScanFormClient {
  /** Renders the form (an iframe) inside an empty element. */
  attach(element: HTMLElement): void;
  /** Submits the form to the service; answers the form id, synchronously or as a promise. */
  getId(): string | Promise<string>;
}

/** The global `ServiceScan` namespace defined by the client script. */
export interface ServiceScanNamespace {
  /** Creates a form client with the shareable key. */
  Form(options: { key: string; config: ServiceScanFormConfig & { callback?: ServiceScanCallback } }): ServiceScanFormClient;
}

/** What `submit()` resolves to once the form has answered. */
export interface ServiceScanSubmitResult {
  /** The form id to send to Medusa (the backend exchanges it for a processor token). */
  formId: string;
  /** The validation response code; `"870"` means valid. */
  responseCode: string;
}

/** The payment session `data` the ServiceScan Medusa provider returns. */
export interface ServiceScanSessionData {
  /** URL of the hosted form's client script. */
  client_script_url: string;
  /** The shareable (browser) API key. Never a secret. */
  shareable_key: string;
  /** Processor the service tokenizes at. */
  processor: string;
  /** Options for `ServiceScan.Form`. */
  form_config: ServiceScanFormConfig;
}

/**
 * The part of a Medusa payment session the widget reads. A
 * `HttpTypes.StorePaymentSession` from `@medusajs/js-sdk` fits this type.
 */
export interface ServiceScanPaymentSessionLike {
  /** Provider data; for ServiceScan it has the shape of {@link ServiceScanSessionData}. */
  data?: Record<string, unknown> | null;
}

/**
 * A saved card of the signed-in customer, as `GET /store/servicescan/payment-methods`
 * lists it (`payment_methods`, most recently saved first). Never a token.
 */
export interface ServiceScanSavedCard {
  /** What to pass as `paymentMethodId` to `payWithServiceScan`. */
  id: string;
  /** The brand a shopper recognises ("Visa"), or null when the processor did not say. */
  brand: string | null;
  last4: string | null;
}
