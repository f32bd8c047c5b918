import { ServiceScanPaymentError, payWithServiceScan } from "../src/index";

/**
 * A 429 from the plugin's velocity limits (medusa-plugin-servicescan, api/store/carts/velocity.ts):
 * `{ type: "too_many_attempts", message: "Too many payment attempts. Please try again in N minutes.", retry_after }`
 * with a Retry-After header. The js-sdk's FetchError keeps only the status and the body's message,
 * and the plugin writes the message from the same figure as Retry-After: the widget shows it.
 */

/** The FetchError shape @medusajs/js-sdk throws for HTTP errors. */
class FetchError extends Error {
  constructor(message: string, public statusText?: string, public status?: number) {
    super(message);
  }
}

type Cart = { id: string; total: number };
type Order = { id: string };
let n = 0;
const freshCart = (): Cart => ({ id: `cart_limited_${++n}`, total: 1999 });
const order: Order = { id: "order_01" };
const limited = (minutes: number) =>
  new FetchError(`Too many payment attempts. Please try again in ${minutes} ${minutes == 1 ? "minute" : "minutes"}.`, "Too Many Requests", 429);

function fakeSdk() {
  const calls: string[] = [];
  const complete = jest.fn(async (_id: string): Promise<
    { type: "order"; order: Order } | { type: "cart"; cart: Cart; error: { message: string; name?: string } }
  > => {
    calls.push("complete");
    return { type: "order", order };
  });
  const initiatePaymentSession = jest.fn(async (_cart: Cart, _body: { provider_id: string; data?: Record<string, unknown> }) => {
    calls.push("initiatePaymentSession");
    return {};
  });
  /** The next completion fails with `error` (still logged in `calls`). */
  const failOnce = (error: Error) =>
    complete.mockImplementationOnce(async () => {
      calls.push("complete");
      throw error;
    });
  return { sdk: { store: { payment: { initiatePaymentSession }, cart: { complete } } }, calls, complete, failOnce };
}

const form = () => ({
  submit: jest.fn(async () => ({ formId: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", responseCode: "870" })),
});

describe("payWithServiceScan and a 429 (too many payment attempts)", () => {
  it("returns a calm `limited` error with the store's sentence: when to try again, in minutes", async () => {
    const { sdk, failOnce } = fakeSdk();
    const failure = limited(12);
    failOnce(failure);
    const result = await payWithServiceScan(sdk, freshCart(), { form: form() });

    expect(result).toMatchObject({
      type: "error",
      error: {
        kind: "limited",
        status: 429,
        message: "Too many payment attempts. Please try again in 12 minutes.",
        cause: failure,
      },
    });
    if (result.type == "error") {
      expect(result.error).toBeInstanceOf(ServiceScanPaymentError);
      expect(result.error.message).not.toMatch(/declin|card|limit/i);
    }
  });

  it("does not start over by itself: one form submission, one session, one completion per call", async () => {
    const { sdk, calls, failOnce } = fakeSdk();
    const f = form();
    const cart = freshCart();
    failOnce(limited(3));
    const refused = await payWithServiceScan(sdk, cart, { form: f });
    expect(refused).toMatchObject({ type: "error", error: { kind: "limited" } });
    expect(calls).toEqual(["initiatePaymentSession", "complete"]);
    expect(f.submit).toHaveBeenCalledTimes(1);

    // The shopper tries again later: the full flow, once (another card may be what they try).
    const later = await payWithServiceScan(sdk, cart, { form: f });
    expect(later).toEqual({ type: "order", order });
    expect(calls).toEqual(["initiatePaymentSession", "complete", "initiatePaymentSession", "complete"]);
  });

  it("keeps an earlier doubt: a refusal before anything ran says nothing about the payment still unanswered", async () => {
    const { sdk, calls, failOnce } = fakeSdk();
    const f = form();
    const cart = freshCart();
    failOnce(new FetchError("Gateway Timeout", "Gateway Timeout", 504));
    failOnce(limited(2));
    await payWithServiceScan(sdk, cart, { form: f });
    const refused = await payWithServiceScan(sdk, cart, { form: f });
    expect(refused).toMatchObject({ type: "error", error: { kind: "limited", status: 429 } });

    // Still the same session: completing again, no new form, no new session.
    const next = await payWithServiceScan(sdk, cart, { form: f });
    expect(next).toEqual({ type: "order", order });
    expect(f.submit).toHaveBeenCalledTimes(1);
    expect(calls).toEqual(["initiatePaymentSession", "complete", "complete", "complete"]);
  });

  it("a 429 without a sentence of its own (another server's) gets the widget's localisable text", async () => {
    const { sdk, failOnce } = fakeSdk();
    failOnce(new FetchError("Too Many Requests", "Too Many Requests", 429));
    const result = await payWithServiceScan(sdk, freshCart(), { form: form(), messages: { rejected: "Commande impossible." } });
    expect(result).toMatchObject({ type: "error", error: { kind: "limited", status: 429, message: "Commande impossible." } });
  });

  it("a 429 when sending the session is `limited` too, and completes nothing", async () => {
    const { sdk, calls } = fakeSdk();
    sdk.store.payment.initiatePaymentSession.mockImplementationOnce(async () => {
      calls.push("initiatePaymentSession");
      throw limited(4);
    });
    const result = await payWithServiceScan(sdk, freshCart(), { form: form() });
    expect(result).toMatchObject({ type: "error", error: { kind: "limited", message: "Too many payment attempts. Please try again in 4 minutes." } });
    expect(calls).toEqual(["initiatePaymentSession"]);
  });
});
