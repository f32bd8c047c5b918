import { serviceScanDeviceId } from "./device.js";
import { ServiceScanPaymentError } from "./errors.js";
import { describeResponseCode, withMessages, type ServiceScanMessages } from "./messages.js";
import type { ServiceScanSubmitResult } from "./types.js";

/**
 * The part of `@medusajs/js-sdk`'s `Medusa` client this package calls. Typed
 * structurally so the package never imports the SDK; a `new Medusa(...)`
 * instance fits it.
 */
export interface ServiceScanSdk<TCart, TOrder> {
  store: {
    payment: {
      initiatePaymentSession(
        cart: TCart,
        body: { provider_id: string; data?: Record<string, unknown> },
      ): Promise<unknown>;
    };
    cart: {
      complete(
        cartId: string,
      ): Promise<
        | { type: "order"; order: TOrder }
        | { type: "cart"; cart: TCart; error: { message: string; name?: string; type?: string } }
      >;
    };
  };
}

/** Anything with the form's `submit()`: the `ref` of `ServiceScanCardForm`, or `useServiceScanForm()`'s result. */
export interface ServiceScanSubmitter {
  submit(): Promise<ServiceScanSubmitResult>;
}

/** Options of {@link payWithServiceScan}. */
export interface PayWithServiceScanOptions {
  /** The form to submit, usually `formRef.current`. Not used when `paymentMethodId` is given. */
  form?: ServiceScanSubmitter | null;
  /**
   * Pay with this saved card of the signed-in customer (an `id` from `GET /store/servicescan/payment-methods`)
   * instead of the form: nothing is typed or submitted, and the plugin charges the card it saved.
   */
  paymentMethodId?: string | null;
  /**
   * Save the form's card to the signed-in customer's account once the order is placed
   * (what the "Save this card" checkbox of {@link ServiceScanSavedCards} sets).
   */
  saveCard?: boolean;
  /** Medusa payment provider id (default `"pp_servicescan_servicescan"`). */
  providerId?: string;
  /** Replacement texts (another language); missing keys fall back to English. */
  messages?: Partial<ServiceScanMessages>;
}

/**
 * The outcome of {@link payWithServiceScan}: the order, or an error to show
 * (and, for declines, the cart Medusa returned).
 */
export type ServiceScanPaymentResult<TCart, TOrder> =
  | { type: "order"; order: TOrder }
  | { type: "error"; error: ServiceScanPaymentError; cart?: TCart };

// Per cart: a second click while paying joins the first payment instead of completing the cart twice.
const paying = new Map<string, Promise<unknown>>();
// Carts whose last `complete` did not settle the payment: no answer (offline, a gateway's 502/504), a 5xx,
// or a 409. The processor may have authorized (or captured) the card, and the completion may even still be
// running (Medusa holds the cart's lock for it: a retry meanwhile gets 409, or 500 from the in-memory lock).
// The provider derives the processor's request id from the payment session, so only completing again with
// the SAME session is deduplicated; a new session would be a new charge. Only an answer that settles it (an
// order, a decline, or a 4xx other than 409) clears the doubt.
// Kept in sessionStorage too (per tab): a shopper who reloads after a lost answer must not start a new
// session either. Storage can be missing (SSR) or throw (blocked, full): memory alone then.
const inDoubt = new Set<string>();
const settles = (status: number | undefined) => status != undefined && status >= 400 && status < 500 && status != 409;
const doubtKey = (cartId: string) => `servicescan:completion-in-doubt:${cartId}`;
// `sessionStorage` is only touched inside the try blocks below: reading it throws where it is blocked,
// and where it does not exist (SSR) naming it throws a ReferenceError; either way memory alone remains.
const doubt = {
  // Undefined (no) when storage cannot be read: memory, checked first, is all there is.
  has: (cartId: string): boolean | undefined => {
    if (inDoubt.has(cartId)) return true;
    try {
      return sessionStorage.getItem(doubtKey(cartId)) == "1";
    } catch {}
  },
  set: (cartId: string, on: boolean) => {
    if (on) inDoubt.add(cartId);
    else inDoubt.delete(cartId);
    try {
      if (on) sessionStorage.setItem(doubtKey(cartId), "1");
      else sessionStorage.removeItem(doubtKey(cartId));
    } catch {
      // Memory still holds it for this page.
    }
  },
};

/**
 * Pays for a Medusa cart with the card in the ServiceScan form:
 * 1. submits the form; a response code other than `"870"` ends here with a
 *    `validation` error (Medusa is not called);
 * 2. sends `{ form_id, response_code, device_id }` (and `save_card: true` with
 *    `saveCard`) as the payment session data via
 *    `sdk.store.payment.initiatePaymentSession` (`device_id`: see
 *    {@link serviceScanDeviceId});
 * 3. completes the cart with `sdk.store.cart.complete`.
 *
 * With `paymentMethodId` (a saved card) step 1 is skipped and step 2 sends
 * `{ payment_method_id, device_id }`.
 *
 * It never rejects for a failed payment: it resolves with
 * `{ type: "order", order }` or `{ type: "error", error }`, where `error` is a
 * {@link ServiceScanPaymentError} of kind `validation`, `declined`,
 * `rejected` (Medusa answered 4xx; the message is Medusa's when it gave one)
 * or `network` (unreachable, or 5xx) whose `message` can be shown as is.
 * Calls for a cart that is already being paid return the pending result.
 *
 * When `cart.complete` does not settle the payment (no answer, a 5xx, or a
 * 409 because another completion of the cart is still running), the outcome
 * at the processor is unknown: the card may already be authorized or
 * captured. The next call for that cart then only repeats
 * `sdk.store.cart.complete(cart.id)` with the existing payment session, so the
 * processor's duplicate detection returns the original authorization instead
 * of charging again; the form is not submitted and no new session is created.
 * That call returns the order, or the decline/`rejected` error (after which
 * the following call runs the full flow again), or `network` again (still in
 * doubt). A failure of `initiatePaymentSession` leaves nothing in doubt.
 *
 * When the plugin refuses the session for good (its payment was canceled
 * after a failed order, its form already paid another order, or the cart
 * holds a second session that could be charged instead: the cart error's
 * `name` is `ServiceScanNewSessionRequired`), the whole flow runs once more
 * by itself, with a new form submission in a new session (which replaces the
 * cart's others).
 */
export function payWithServiceScan<TCart extends { id: string }, TOrder>(
  sdk: ServiceScanSdk<TCart, TOrder>,
  cart: TCart,
  options: PayWithServiceScanOptions,
): Promise<ServiceScanPaymentResult<TCart, TOrder>> {
  let payment = paying.get(cart.id) as Promise<ServiceScanPaymentResult<TCart, TOrder>> | undefined;
  if (!payment) {
    payment = pay(sdk, cart, options).finally(() => paying.delete(cart.id));
    paying.set(cart.id, payment);
  }
  return payment;
}

async function pay<TCart extends { id: string }, TOrder>(
  sdk: ServiceScanSdk<TCart, TOrder>,
  cart: TCart,
  { form, paymentMethodId, saveCard, providerId = "pp_servicescan_servicescan", messages }: PayWithServiceScanOptions,
): Promise<ServiceScanPaymentResult<TCart, TOrder>> {
  const m = withMessages(messages);
  // The js-sdk throws a `FetchError` with `status` and, as `message`, the JSON body's `message`
  // (or the status text when the body has none) for any non-2xx answer; a failed fetch has no status.
  const failed = (cause: unknown) => {
    const { status, message, statusText } = (cause || {}) as { status?: unknown; message?: unknown; statusText?: unknown };
    const http = typeof status == "number" ? status : undefined;
    // A 4xx means Medusa was reached and refused (out of stock, no shipping method, invalid data): calling
    // it a connection problem would send the shopper retrying in vain. Its message is written for the
    // client; a bare status text ("Bad Request") is not, so it gets ours. A 409 is the exception: another
    // completion of this cart is still running, so waiting and trying again is exactly right.
    const rejected = settles(http);
    const text = rejected && typeof message == "string" && message != statusText ? message : "";
    return {
      type: "error" as const,
      error: new ServiceScanPaymentError(
        http == 429 ? "limited" : rejected ? "rejected" : "network",
        rejected ? text || m.rejected : http == 409 ? m.inProgress : m.network,
        { status: http, cause },
      ),
    };
  };

  // After a session the plugin refuses for good (its payment was canceled, or its form already paid
  // elsewhere), the whole flow runs once more by itself: a new form id in a new session.
  let restarted = false;
  // The last completion got no answer: finish that payment (same session) before any new card attempt.
  return doubt.has(cart.id) ? complete() : fresh();

  async function fresh(): Promise<ServiceScanPaymentResult<TCart, TOrder>> {
    // A saved card needs no form: the session names the card.
    let data: Record<string, unknown> = { payment_method_id: paymentMethodId };
    if (!paymentMethodId) {
      let result: ServiceScanSubmitResult;
      try {
        result = await form!.submit();
      } catch (e) {
        // Timeout or a form that never loaded: the hosted service was unreachable (no status, so `network`).
        return failed(e);
      }
      const code = result.responseCode;
      if (code != "870") {
        return {
          type: "error",
          error: new ServiceScanPaymentError("validation", describeResponseCode(code, m), { code }),
        };
      }
      data = { form_id: result.formId, response_code: code, save_card: saveCard };
    }
    data.device_id = serviceScanDeviceId();

    try {
      await sdk.store.payment.initiatePaymentSession(cart, { provider_id: providerId, data });
    } catch (e) {
      return failed(e);
    }
    return complete();
  }

  // Completes with the current session; an unanswered failure leaves the cart in doubt, any answer settles it.
  async function complete(): Promise<ServiceScanPaymentResult<TCart, TOrder>> {
    let done: Awaited<ReturnType<typeof sdk.store.cart.complete>>;
    try {
      done = await sdk.store.cart.complete(cart.id);
    } catch (e) {
      const out = failed(e);
      // A refusal before anything ran (429) settles nothing: an earlier doubt stays.
      if (out.error.status != 429) doubt.set(cart.id, !settles(out.error.status));
      return out;
    }
    doubt.set(cart.id, false);
    if (done.type == "order") return { type: "order", order: done.order };
    // The plugin's name for "start a new payment session" (medusa-plugin-servicescan, checkout-session.ts).
    if (done.error?.name == "ServiceScanNewSessionRequired" && !restarted) {
      restarted = true;
      return fresh();
    }
    return {
      type: "error",
      cart: done.cart,
      // The provider writes its decline reason for shoppers ("Your card was declined: insufficient funds").
      error: new ServiceScanPaymentError("declined", done.error?.message || m.declined, { cause: done.error }),
    };
  }
}
