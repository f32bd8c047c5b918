import {
  ServiceScanPaymentError,
  ServiceScanTimeoutError,
  payWithServiceScan,
  serviceScanMessages,
  type ServiceScanSubmitResult,
} from "../src/index";

/** The FetchError shape @medusajs/js-sdk throws for HTTP errors. */
class FetchError extends Error {
  constructor(message: string, public statusText?: string, public status?: number) {
    super(message);
  }
}

type Cart = { id: string; total: number };
type Order = { id: string; display_id: number };
const cart: Cart = { id: "cart_01", total: 1999 };
const order: Order = { id: "order_01", display_id: 42 };

function fakeSdk() {
  const calls: string[] = [];
  const sdk = {
    store: {
      payment: {
        initiatePaymentSession: jest.fn(async (_cart: Cart, _body: { provider_id: string; data?: Record<string, unknown> }) => {
          calls.push("initiatePaymentSession");
          return { payment_collection: { id: "pay_col_1" } };
        }),
      },
      cart: {
        complete: jest.fn(async (_id: string) => {
          calls.push("complete");
          return { type: "order" as const, order } as
            | { type: "order"; order: Order }
            | { type: "cart"; cart: Cart; error: { message: string; name: string; type: string } };
        }),
      },
    },
  };
  return { sdk, calls };
}

const form = (result: Partial<ServiceScanSubmitResult> | Error) => ({
  submit: jest.fn(async () => {
    if (result instanceof Error) throw result;
    return { formId: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", responseCode: "870", ...result };
  }),
});

describe("payWithServiceScan", () => {
  it("submits the form, sends form_id and response_code to Medusa, completes the cart, returns the order", async () => {
    const { sdk, calls } = fakeSdk();
    const f = form({});
    const result = await payWithServiceScan(sdk, cart, { form: f });

    expect(result).toEqual({ type: "order", order });
    expect(f.submit).toHaveBeenCalledTimes(1);
    expect(sdk.store.payment.initiatePaymentSession).toHaveBeenCalledTimes(1);
    expect(sdk.store.payment.initiatePaymentSession).toHaveBeenCalledWith(cart, {
      provider_id: "pp_servicescan_servicescan",
      data: { form_id: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", response_code: "870" },
    });
    expect(sdk.store.cart.complete).toHaveBeenCalledWith("cart_01");
    expect(calls).toEqual(["initiatePaymentSession", "complete"]);
  });

  it("uses a configured provider id", async () => {
    const { sdk } = fakeSdk();
    await payWithServiceScan(sdk, cart, { form: form({}), providerId: "pp_servicescan_eu" });
    expect(sdk.store.payment.initiatePaymentSession.mock.calls[0][1].provider_id).toBe("pp_servicescan_eu");
  });

  it("returns a validation error with the code and message, without calling Medusa", async () => {
    const { sdk } = fakeSdk();
    const result = await payWithServiceScan(sdk, cart, { form: form({ responseCode: "871" }) });

    expect(result.type).toBe("error");
    if (result.type != "error") throw new Error("unreachable");
    expect(result.error).toBeInstanceOf(ServiceScanPaymentError);
    expect(result.error).toMatchObject({ kind: "validation", code: "871", message: serviceScanMessages["871"] });
    expect(sdk.store.payment.initiatePaymentSession).not.toHaveBeenCalled();
    expect(sdk.store.cart.complete).not.toHaveBeenCalled();
  });

  it("localises the validation message", async () => {
    const { sdk } = fakeSdk();
    const result = await payWithServiceScan(sdk, cart, {
      form: form({ responseCode: "886" }),
      messages: { 886: "Ungültiges Ablaufdatum." },
    });
    expect(result).toMatchObject({ type: "error", error: { kind: "validation", message: "Ungültiges Ablaufdatum." } });
  });

  it("returns the provider's decline message and the cart when Medusa answers with the cart", async () => {
    const { sdk } = fakeSdk();
    const declinedCart: Cart = { ...cart, total: 1999 };
    const medusaError = { message: "Your card was declined: insufficient funds", name: "Error", type: "payment_authorization_error" };
    sdk.store.cart.complete.mockResolvedValueOnce({ type: "cart", cart: declinedCart, error: medusaError });

    const result = await payWithServiceScan(sdk, cart, { form: form({}) });

    expect(sdk.store.payment.initiatePaymentSession).toHaveBeenCalledTimes(1);
    expect(result.type).toBe("error");
    if (result.type != "error") throw new Error("unreachable");
    expect(result.cart).toBe(declinedCart);
    expect(result.error).toMatchObject({
      kind: "declined",
      message: "Your card was declined: insufficient funds",
      cause: medusaError,
    });
  });

  it("falls back to the default decline message when Medusa's is empty", async () => {
    const { sdk } = fakeSdk();
    sdk.store.cart.complete.mockResolvedValueOnce({ type: "cart", cart, error: { message: "", name: "", type: "" } });
    const result = await payWithServiceScan(sdk, cart, { form: form({}) });
    expect(result).toMatchObject({ type: "error", error: { kind: "declined", message: serviceScanMessages.declined } });
  });

  it("returns a network error with the HTTP status when initiatePaymentSession fails, and does not complete", async () => {
    const { sdk } = fakeSdk();
    const failure = new FetchError("Service unavailable", "Service Unavailable", 503);
    sdk.store.payment.initiatePaymentSession.mockRejectedValueOnce(failure);

    const result = await payWithServiceScan(sdk, cart, { form: form({}) });

    expect(result).toMatchObject({
      type: "error",
      error: { kind: "network", status: 503, message: serviceScanMessages.network, cause: failure },
    });
    expect(sdk.store.cart.complete).not.toHaveBeenCalled();
  });

  it("returns a rejected error with Medusa's message when initiatePaymentSession answers 400, and does not complete", async () => {
    const { sdk } = fakeSdk();
    const failure = new FetchError("Invalid request: Expected type: 'string' for field 'provider_id'", "Bad Request", 400);
    sdk.store.payment.initiatePaymentSession.mockRejectedValueOnce(failure);

    const result = await payWithServiceScan(sdk, cart, { form: form({}) });

    expect(result).toMatchObject({
      type: "error",
      error: { kind: "rejected", status: 400, message: failure.message, cause: failure },
    });
    expect(sdk.store.cart.complete).not.toHaveBeenCalled();
  });

  it.each([
    [400, "Bad Request", "Variant variant_01 does not have the required inventory"],
    [400, "Bad Request", "No shipping method selected but the cart contains items that require shipping."],
    [409, "Conflict", "Cart is already being completed by another request"],
    [422, "Unprocessable Entity", "Your cart could not be completed."],
  ])("returns a rejected (not network) error with Medusa's message when complete answers %i", async (status, statusText, message) => {
    const { sdk } = fakeSdk();
    const failure = new FetchError(message, statusText, status);
    sdk.store.cart.complete.mockRejectedValueOnce(failure);

    const result = await payWithServiceScan(sdk, cart, { form: form({}) });

    expect(result).toMatchObject({ type: "error", error: { kind: "rejected", status, message, cause: failure } });
    if (result.type == "error") expect(result.error).toBeInstanceOf(ServiceScanPaymentError);
  });

  it("uses the (localisable) rejected message when a 4xx carries no message of its own", async () => {
    const { sdk } = fakeSdk();
    // The SDK falls back to the status text when the body has no `message`.
    sdk.store.cart.complete.mockRejectedValueOnce(new FetchError("Conflict", "Conflict", 409));
    const result = await payWithServiceScan(sdk, cart, { form: form({}) });
    expect(result).toMatchObject({ type: "error", error: { kind: "rejected", status: 409, message: serviceScanMessages.rejected } });

    sdk.store.cart.complete.mockRejectedValueOnce(new FetchError("", "", 400));
    const fr = await payWithServiceScan(sdk, cart, { form: form({}), messages: { rejected: "Commande impossible." } });
    expect(fr).toMatchObject({ type: "error", error: { kind: "rejected", status: 400, message: "Commande impossible." } });
  });

  it("keeps 5xx answers from complete as network errors", async () => {
    const { sdk } = fakeSdk();
    sdk.store.cart.complete.mockRejectedValueOnce(new FetchError("An unknown error occurred.", "Internal Server Error", 500));
    const result = await payWithServiceScan(sdk, cart, { form: form({}) });
    expect(result).toMatchObject({ type: "error", error: { kind: "network", status: 500, message: serviceScanMessages.network } });
  });

  it("returns a network error without status when fetch itself fails during complete", async () => {
    const { sdk } = fakeSdk();
    sdk.store.cart.complete.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    const result = await payWithServiceScan(sdk, cart, { form: form({}) });
    expect(result).toMatchObject({ type: "error", error: { kind: "network", status: undefined } });
  });

  it("returns a network error when the form times out, without calling Medusa", async () => {
    const { sdk } = fakeSdk();
    const timeout = new ServiceScanTimeoutError(15000);
    const result = await payWithServiceScan(sdk, cart, { form: form(timeout) });
    expect(result).toMatchObject({ type: "error", error: { kind: "network", cause: timeout } });
    expect(sdk.store.payment.initiatePaymentSession).not.toHaveBeenCalled();
  });

  it("joins a payment already in progress for the same cart instead of paying twice", async () => {
    const { sdk } = fakeSdk();
    const f = form({});
    const [a, b] = await Promise.all([
      payWithServiceScan(sdk, cart, { form: f }),
      payWithServiceScan(sdk, cart, { form: f }),
    ]);
    expect(a).toBe(b);
    expect(f.submit).toHaveBeenCalledTimes(1);
    expect(sdk.store.cart.complete).toHaveBeenCalledTimes(1);

    // Once settled, a new attempt (e.g. after a decline) runs again.
    await payWithServiceScan(sdk, cart, { form: f });
    expect(sdk.store.cart.complete).toHaveBeenCalledTimes(2);
  });
});
