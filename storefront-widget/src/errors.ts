/**
 * Base class of every error this package creates, so a page can tell them
 * apart from its own errors with a single `instanceof ServiceScanError`.
 */
export class ServiceScanError extends Error {
  /** The underlying error or value, when there is one (kept for logging, never shown to shoppers). */
  override cause?: unknown;

  constructor(message: string, cause?: unknown) {
    super(message);
    // Set explicitly: minifiers rename classes, so `constructor.name` is not reliable.
    this.name = "ServiceScanError";
    // Assigned by hand because the `Error(message, { cause })` option is ES2022 and we target ES2020.
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * Why the client script could not be used:
 * - `network`: the `<script>` failed to load (offline, 404, DNS, blocked by CSP or an ad blocker);
 * - `script`: the script loaded but did not define `ServiceScan.Form` (it threw, or it is the wrong file),
 *   or creating/attaching the form threw;
 * - `timeout`: neither happened within `timeoutMs`;
 * - `ssr`: called where there is no `document` (server rendering).
 */
export type ServiceScanLoadErrorKind = "network" | "script" | "timeout" | "ssr";

/** The client script could not be loaded or the form could not be created. A later call retries. */
export class ServiceScanLoadError extends ServiceScanError {
  /** What went wrong; see {@link ServiceScanLoadErrorKind}. */
  kind: ServiceScanLoadErrorKind;
  /** The client script URL that failed. */
  url: string;

  constructor(kind: ServiceScanLoadErrorKind, url: string, cause?: unknown) {
    super(`ServiceScan client script could not be used (${kind}): ${url}`, cause);
    this.name = "ServiceScanLoadError";
    this.kind = kind;
    this.url = url;
  }
}

/** `submit()` got no response code from the form within `timeoutMs`. */
export class ServiceScanTimeoutError extends ServiceScanError {
  /** The limit that was exceeded, in milliseconds. */
  timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`ServiceScan form gave no response code within ${timeoutMs} ms`);
    this.name = "ServiceScanTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Why a payment did not go through:
 * - `validation`: the card form reported a problem with what the shopper typed (Medusa was not called);
 * - `declined`: Medusa could not complete the cart because the payment was refused;
 * - `rejected`: Medusa answered a call with a 4xx error other than 409 (e.g. an item went out of
 *   stock, no shipping method, invalid data): retrying as is will not help;
 * - `network`: the hosted form or Medusa could not be reached, Medusa answered with a 5xx error, or
 *   with 409 (another completion of the cart is still running): trying again later may succeed;
 * - `limited`: the store refused the payment for now (HTTP 429: too many payment attempts), before
 *   anything was charged; the message is Medusa's and says in how many minutes to try again.
 */
export type ServiceScanPaymentErrorKind = "validation" | "declined" | "rejected" | "network" | "limited";

/** Details carried by a {@link ServiceScanPaymentError}. */
export interface ServiceScanPaymentErrorDetails {
  /** The form's response code (e.g. `"871"`), for `validation` errors. */
  code?: string;
  /** The HTTP status of the failed Medusa call, when there was one. */
  status?: number;
  /** The original error or Medusa error object. */
  cause?: unknown;
}

/**
 * A failed payment, with a `message` written for the shopper.
 * {@link payWithServiceScan} returns it (it does not throw it).
 */
export class ServiceScanPaymentError extends ServiceScanError {
  /** What went wrong; see {@link ServiceScanPaymentErrorKind}. */
  kind: ServiceScanPaymentErrorKind;
  /** The form's response code, for `validation` errors. */
  code?: string;
  /** The HTTP status of the failed Medusa call, when there was one. */
  status?: number;

  constructor(kind: ServiceScanPaymentErrorKind, message: string, details: ServiceScanPaymentErrorDetails = {}) {
    super(message, details.cause);
    this.name = "ServiceScanPaymentError";
    this.kind = kind;
    // code and status (and cause again: the same value).
    Object.assign(this, details);
  }
}
