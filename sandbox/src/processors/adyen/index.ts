import { jsonError } from "../../http";
import type { Log } from "../../server";
import type { FormRecord } from "../../store";
import { behaviourOf, brandOf, parseExpiry, storedPaymentMethodId } from "./cards";
import { Checkout } from "./checkout";
import { AdyenDisputes } from "./disputes";
import type { AdyenMerchantInput, AdyenStore } from "./state";
import { Webhooks } from "./webhooks";

/**
 * The simulated Adyen: Checkout API v71, Disputes API v30 and standard notification webhooks, for
 * the sandbox's `adyen` processor segment. Its state lives in the store (`store.adyen`); this is
 * the service the handlers and the control API call.
 */
export class Adyen {
  readonly webhooks: Webhooks;
  readonly checkout: Checkout;
  readonly disputes: AdyenDisputes;

  constructor(
    readonly store: AdyenStore,
    private readonly log: Log,
  ) {
    this.webhooks = new Webhooks(store, log);
    this.checkout = new Checkout(store, this.webhooks, log);
    this.disputes = new AdyenDisputes(store, this.webhooks, log);
  }

  /**
   * The `adyen` token exchange: stores the form's card as a stored payment method of the account's
   * merchant and answers its id, the token.
   *
   * Rule (written down as "scan id = form id" is): the shopperReference is the form config's
   * `customerId`; a form without one is stored under its own form id (a lower-case UUID). A
   * `/payments` with the token must name that shopperReference.
   */
  tokenizeForm(accountId: string, form: FormRecord): string {
    const merchant = this.store.merchantOfAccount(accountId);
    if (!merchant) throw jsonError(409, "This account has no Adyen merchant account");
    const shopperReference = form.config.customerId ?? form.id;
    // Adyen's schema: shopperReference is 3 to 256 characters; customerId is at most 50.
    if (shopperReference.length < 3) {
      throw jsonError(402, "Tokenization failed", { processorResponse: "000", processorMessage: "Field 'shopperReference' must be 3 to 256 characters." });
    }
    const number = form.card.number;
    if (behaviourOf(number).kind === "untokenizable") {
      throw jsonError(402, "Tokenization failed", { processorResponse: "101", processorMessage: "Invalid card number" });
    }
    const expiry = parseExpiry(form.card.expiry);
    // The form validated the expiry (886), so this cannot happen; refuse rather than store nonsense.
    if (!expiry) throw jsonError(402, "Tokenization failed", { processorResponse: "000", processorMessage: "Invalid expiry date" });
    const id = storedPaymentMethodId(merchant.merchantAccount, shopperReference, number);
    const existing = this.store.storedCard(merchant.merchantAccount, id);
    if (!existing) {
      this.store.saveStoredCard({
        storedPaymentMethodId: id,
        merchantAccount: merchant.merchantAccount,
        shopperReference,
        cardNumber: number,
        expiryMonth: expiry.month,
        expiryYear: expiry.year,
        brand: brandOf(number),
        createdAt: new Date().toISOString(),
      });
    }
    this.log("info", `adyen: stored card …${number.slice(-4)} for shopper ${shopperReference} as ${id} (${existing ? "alreadyExisting" : "created"})`);
    return id;
  }

  /** An Idempotency-Key answer was replayed: counted on the payment or modification it created. */
  countReplay(pspReference: string | null): void {
    if (pspReference === null) return;
    const record = this.store.payments.get(pspReference) ?? this.store.modifications.get(pspReference);
    if (record) record.replays += 1;
  }

  close(): void {
    this.webhooks.close();
    this.checkout.close();
  }
}

/** The demo account's Adyen side: fixed, so examples and `.env` files can hard-code it. */
export const DEMO_ADYEN = Object.freeze({
  companyAccount: "ServiceScanDemo",
  merchantAccount: "ServiceScanDemoECOM",
  apiKey: "AQE_test_servicescan_demo_adyen_api_key",
  username: "ws@Company.ServiceScanDemo",
  password: "demo-adyen-password",
  hmacKey: "5934AD24EED2B42F39D1F8BBAA602FF05E7D291AC95BC71EA5538AC41B6F0F56",
  webhookUsername: "adyen-webhook",
  webhookPassword: "demo-webhook-password",
});

/** The demo merchant; its webhook has Basic credentials, and a URL when one is given. */
export function demoMerchantInput(options: { webhookUrl?: string | undefined; captureDelay?: "immediate" | "manual" | undefined }): AdyenMerchantInput {
  return {
    companyAccount: DEMO_ADYEN.companyAccount,
    merchantAccount: DEMO_ADYEN.merchantAccount,
    apiKey: DEMO_ADYEN.apiKey,
    username: DEMO_ADYEN.username,
    password: DEMO_ADYEN.password,
    hmacKey: DEMO_ADYEN.hmacKey,
    webhookUrl: options.webhookUrl ?? null,
    webhookAuth: { username: DEMO_ADYEN.webhookUsername, password: DEMO_ADYEN.webhookPassword },
    captureDelay: options.captureDelay ?? "immediate",
  };
}

export { hmacSignature, signingString, type SignedFields } from "./hmac";
export { ADYEN_SERVICE_ROUTES } from "./route-names";
export type * from "./state";
