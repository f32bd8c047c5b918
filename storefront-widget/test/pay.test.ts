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
      // The device id (test/device.test.ts): jsdom has no crypto.randomUUID, so none ("") here.
      data: { form_id: "6f1c1a52-8a4c-4d0e-9f0a-3b2b7b1e9c11", response_code: "870", device_id: expect.any(String) },
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
    sdk.store.cart.complete.mockRejectedValueOnce(new FetchError("Bad Request", "Bad Request", 400));
    const result = await payWithServiceScan(sdk, cart, { form: form({}) });
    expect(result).toMatchObject({ type: "error", error: { kind: "rejected", status: 400, message: serviceScanMessages.rejected } });

    sdk.store.cart.complete.mockRejectedValueOnce(new FetchError("", "", 400));
    const fr = await payWithServiceScan(sdk, cart, { form: form({}), messages: { rejected: "Commande impossible." } });
    expect(fr).toMatchObject({ type: "error", error: { kind: "rejected", status: 400, message: "Commande impossible." } });
  });

  it("keeps 5xx answers from complete as network errors", async () => {
    const { sdk } = fakeSdk();
    sdk.store.cart.complete.mockRejectedValueOnce(new FetchError("An unknown error occurred.", "Internal Server Error", 500));
    // Its own cart: a 5xx leaves that cart in doubt (module state shared by the tests).
    const result = await payWithServiceScan(sdk, { ...cart, id: "cart_5xx" }, { form: form({}) });
    expect(result).toMatchObject({ type: "error", error: { kind: "network", status: 500, message: serviceScanMessages.network } });
  });

  it("says a 409 (the cart is still being completed) is worth waiting for, not a refusal", async () => {
    const { sdk } = fakeSdk();
    const failure = new FetchError("The request conflicted with another request.", "Conflict", 409);
    sdk.store.cart.complete.mockRejectedValueOnce(failure);
    const result = await payWithServiceScan(sdk, { ...cart, id: "cart_409" }, { form: form({}) });
    expect(result).toMatchObject({ type: "error", error: { kind: "network", status: 409, message: serviceScanMessages.inProgress } });
  });

  it("returns a network error without status when fetch itself fails during complete", async () => {
    const { sdk } = fakeSdk();
    sdk.store.cart.complete.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    const result = await payWithServiceScan(sdk, { ...cart, id: "cart_offline" }, { form: form({}) });
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

describe("payWithServiceScan after a completion without an answer", () => {
  // Each test uses its own cart: the doubt is kept per cart id in module state.
  let n = 0;
  const freshCart = (): Cart => ({ id: `cart_doubt_${++n}`, total: 1999 });
  // Like mockRejectedValueOnce, but the call is still logged in `calls`.
  const failOnce = (fake: ReturnType<typeof fakeSdk>, name: "complete" | "initiatePaymentSession", error: Error) => {
    const fn = name == "complete" ? fake.sdk.store.cart.complete : fake.sdk.store.payment.initiatePaymentSession;
    (fn as jest.Mock).mockImplementationOnce(async () => {
      fake.calls.push(name);
      throw error;
    });
  };

  it.each([
    ["offline", new TypeError("Failed to fetch")],
    ["a 502", new FetchError("Bad Gateway", "Bad Gateway", 502)],
  ])("after %s from complete, the retry only completes again (same session, no form submit) and returns the order", async (_, failure) => {
    const fake = fakeSdk();
    const { sdk, calls } = fake;
    const c = freshCart();
    const f = form({});
    failOnce(fake, "complete", failure);

    const first = await payWithServiceScan(sdk, c, { form: f });
    expect(first).toMatchObject({ type: "error", error: { kind: "network", cause: failure } });

    const retry = await payWithServiceScan(sdk, c, { form: f });
    expect(retry).toEqual({ type: "order", order });
    expect(f.submit).toHaveBeenCalledTimes(1);
    expect(sdk.store.payment.initiatePaymentSession).toHaveBeenCalledTimes(1);
    expect(sdk.store.cart.complete).toHaveBeenNthCalledWith(2, c.id);
    expect(calls).toEqual(["initiatePaymentSession", "complete", "complete"]);

    // Settled: the next payment is a full one.
    await payWithServiceScan(sdk, c, { form: f });
    expect(f.submit).toHaveBeenCalledTimes(2);
    expect(calls).toEqual(["initiatePaymentSession", "complete", "complete", "initiatePaymentSession", "complete"]);
  });

  it.each([500, 503, 409])(
    "keeps the doubt after %i: the completion may still hold the cart's lock, so the retry completes the same session",
    async (status) => {
      const fake = fakeSdk();
      const { sdk, calls } = fake;
      const c = freshCart();
      const f = form({});
      failOnce(fake, "complete", new FetchError("An unknown error occurred.", "Error", status));

      const first = await payWithServiceScan(sdk, c, { form: f });
      expect(first).toMatchObject({ type: "error", error: { kind: "network", status } });
      const next = await payWithServiceScan(sdk, c, { form: f });
      expect(next).toEqual({ type: "order", order });
      expect(f.submit).toHaveBeenCalledTimes(1);
      expect(calls).toEqual(["initiatePaymentSession", "complete", "complete"]);
    },
  );

  it("keeps the doubt while completing again still gets no answer", async () => {
    const fake = fakeSdk();
    const { sdk, calls } = fake;
    const c = freshCart();
    const f = form({});
    failOnce(fake, "complete", new TypeError("Failed to fetch"));
    failOnce(fake, "complete", new FetchError("Gateway Timeout", "Gateway Timeout", 504));

    await payWithServiceScan(sdk, c, { form: f });
    const second = await payWithServiceScan(sdk, c, { form: f });
    expect(second).toMatchObject({ type: "error", error: { kind: "network", status: 504, message: serviceScanMessages.network } });

    const third = await payWithServiceScan(sdk, c, { form: f });
    expect(third).toEqual({ type: "order", order });
    expect(f.submit).toHaveBeenCalledTimes(1);
    expect(calls).toEqual(["initiatePaymentSession", "complete", "complete", "complete"]);
  });

  it("returns a decline from the repeated completion, then runs the full flow on the next call", async () => {
    const fake = fakeSdk();
    const { sdk, calls } = fake;
    const c = freshCart();
    const f = form({});
    const medusaError = { message: "Your card was declined: insufficient funds", name: "Error", type: "payment_authorization_error" };
    failOnce(fake, "complete", new TypeError("Failed to fetch"));
    sdk.store.cart.complete.mockResolvedValueOnce({ type: "cart", cart: c, error: medusaError });

    await payWithServiceScan(sdk, c, { form: f });
    const retry = await payWithServiceScan(sdk, c, { form: f });
    expect(retry).toMatchObject({ type: "error", cart: c, error: { kind: "declined", message: medusaError.message } });
    // The shopper sees the decline; this call does not go on to a new card attempt.
    expect(f.submit).toHaveBeenCalledTimes(1);
    expect(sdk.store.payment.initiatePaymentSession).toHaveBeenCalledTimes(1);
    expect(sdk.store.cart.complete).toHaveBeenCalledTimes(2);

    const next = await payWithServiceScan(sdk, c, { form: f });
    expect(next).toEqual({ type: "order", order });
    expect(f.submit).toHaveBeenCalledTimes(2);
    expect(sdk.store.payment.initiatePaymentSession).toHaveBeenCalledTimes(2);
    expect(sdk.store.cart.complete).toHaveBeenCalledTimes(3);
    // (the resolved decline is not logged in `calls`) the new session comes before the last completion:
    expect(calls).toEqual(["initiatePaymentSession", "complete", "initiatePaymentSession", "complete"]);
  });

  it("clears the doubt when the repeated completion answers 4xx, and returns the rejection", async () => {
    const fake = fakeSdk();
    const { sdk, calls } = fake;
    const c = freshCart();
    const f = form({});
    const failure = new FetchError("Variant variant_01 does not have the required inventory", "Bad Request", 400);
    failOnce(fake, "complete", new FetchError("Gateway Timeout", "Gateway Timeout", 504));
    failOnce(fake, "complete", failure);

    await payWithServiceScan(sdk, c, { form: f });
    const retry = await payWithServiceScan(sdk, c, { form: f });
    expect(retry).toMatchObject({ type: "error", error: { kind: "rejected", status: 400, message: failure.message } });
    expect(f.submit).toHaveBeenCalledTimes(1);

    await payWithServiceScan(sdk, c, { form: f });
    expect(f.submit).toHaveBeenCalledTimes(2);
    expect(calls).toEqual(["initiatePaymentSession", "complete", "complete", "initiatePaymentSession", "complete"]);
  });

  it("leaves nothing in doubt when a 4xx from the first complete already answered", async () => {
    const fake = fakeSdk();
    const { sdk, calls } = fake;
    const c = freshCart();
    const f = form({});
    failOnce(fake, "complete", new FetchError("Variant variant_01 does not have the required inventory", "Bad Request", 400));

    await payWithServiceScan(sdk, c, { form: f });
    await payWithServiceScan(sdk, c, { form: f });
    expect(f.submit).toHaveBeenCalledTimes(2);
    expect(calls).toEqual(["initiatePaymentSession", "complete", "initiatePaymentSession", "complete"]);
  });

  it("leaves nothing in doubt when initiatePaymentSession fails (no completion was attempted)", async () => {
    const fake = fakeSdk();
    const { sdk, calls } = fake;
    const c = freshCart();
    const f = form({});
    failOnce(fake, "initiatePaymentSession", new TypeError("Failed to fetch"));

    const first = await payWithServiceScan(sdk, c, { form: f });
    expect(first).toMatchObject({ type: "error", error: { kind: "network" } });
    const next = await payWithServiceScan(sdk, c, { form: f });
    expect(next).toEqual({ type: "order", order });
    expect(f.submit).toHaveBeenCalledTimes(2);
    expect(calls).toEqual(["initiatePaymentSession", "initiatePaymentSession", "complete"]);
  });

  it("keeps the doubt per cart: another cart pays normally", async () => {
    const fake = fakeSdk();
    const { sdk, calls } = fake;
    const c = freshCart();
    const other = freshCart();
    const f = form({});
    failOnce(fake, "complete", new TypeError("Failed to fetch"));

    await payWithServiceScan(sdk, c, { form: f });
    await payWithServiceScan(sdk, other, { form: f });
    expect(f.submit).toHaveBeenCalledTimes(2);
    expect(calls).toEqual(["initiatePaymentSession", "complete", "initiatePaymentSession", "complete"]);
  });

  it("lets concurrent retries of a cart in doubt join one repeated completion", async () => {
    const fake = fakeSdk();
    const { sdk, calls } = fake;
    const c = freshCart();
    const f = form({});
    failOnce(fake, "complete", new TypeError("Failed to fetch"));

    await payWithServiceScan(sdk, c, { form: f });
    const [a, b] = await Promise.all([payWithServiceScan(sdk, c, { form: f }), payWithServiceScan(sdk, c, { form: f })]);
    expect(a).toBe(b);
    expect(a).toEqual({ type: "order", order });
    expect(calls).toEqual(["initiatePaymentSession", "complete", "complete"]);
  });

  describe("a session the plugin refuses for good (ServiceScanNewSessionRequired)", () => {
    const refused = (message: string) => ({
      type: "cart" as const,
      cart,
      error: { message, name: "ServiceScanNewSessionRequired", type: "payment_authorization_error" },
    });

    it("starts over once by itself: a new form submission in a new session, then the order", async () => {
      const { sdk, calls } = fakeSdk();
      sdk.store.cart.complete.mockImplementationOnce(async () => {
        calls.push("complete");
        return refused("Your earlier payment attempt was canceled.");
      });
      const f = form({});
      const result = await payWithServiceScan(sdk, cart, { form: f });

      expect(result).toEqual({ type: "order", order });
      expect(f.submit).toHaveBeenCalledTimes(2);
      expect(calls).toEqual(["initiatePaymentSession", "complete", "initiatePaymentSession", "complete"]);
    });

    it("starts over only once, then shows the plugin's message", async () => {
      const { sdk, calls } = fakeSdk();
      sdk.store.cart.complete.mockImplementation(async () => {
        calls.push("complete");
        return refused("These card details were already used for another payment.");
      });
      const result = await payWithServiceScan(sdk, cart, { form: form({}) });

      expect(calls).toEqual(["initiatePaymentSession", "complete", "initiatePaymentSession", "complete"]);
      expect(result.type).toBe("error");
      if (result.type != "error") throw new Error("unreachable");
      expect(result.error.kind).toBe("declined");
      expect(result.error.message).toBe("These card details were already used for another payment.");
    });

    it("also after a completion in doubt: the same session first, then a new one when the plugin refuses it", async () => {
      const { sdk, calls } = fakeSdk();
      const doubtful = { ...cart, id: "cart_refused_after_doubt" };
      sdk.store.cart.complete
        .mockImplementationOnce(async () => {
          calls.push("complete");
          throw new FetchError("Internal Server Error", "Internal Server Error", 500);
        })
        .mockImplementationOnce(async () => {
          calls.push("complete");
          return refused("Your earlier payment attempt was canceled.");
        });
      const first = await payWithServiceScan(sdk, doubtful, { form: form({}) });
      expect(first.type).toBe("error");
      const second = await payWithServiceScan(sdk, doubtful, { form: form({}) });

      expect(second).toEqual({ type: "order", order });
      expect(calls).toEqual(["initiatePaymentSession", "complete", "complete", "initiatePaymentSession", "complete"]);
    });
  });
});
