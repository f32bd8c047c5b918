import * as crypto from "node:crypto";
import { isHexKey } from "./hmac";

/**
 * Everything the simulated Adyen keeps, in memory: merchant accounts with their API credential
 * and webhook endpoint, stored cards, payments and their modifications, disputes, the
 * notification outbox and the idempotency keys. Plain data and lookups; the rules that change it
 * live in checkout.ts, disputes.ts and webhooks.ts.
 */

export type CaptureDelay = "immediate" | "manual";

/** HTTP Basic credentials the sandbox sends with notifications, as set on the webhook in the Customer Area. */
export interface WebhookAuth {
  username: string;
  password: string;
}

/**
 * One merchant account under its own company account, with the company's API credential (an
 * API key and a web-service user for Basic). A sandbox account has exactly one.
 */
export interface AdyenMerchant {
  /** the sandbox account (`acct_demo`, …) whose forms tokenize here */
  accountId: string;
  companyAccount: string;
  merchantAccount: string;
  apiKey: string;
  /** `ws@Company.<companyAccount>` */
  username: string;
  password: string;
  /** the webhook's HMAC key, hex, as the Customer Area shows it */
  hmacKey: string;
  /** where the standard notifications go; null: nowhere (nothing is sent) */
  webhookUrl: string | null;
  webhookAuth: WebhookAuth | null;
  /** the account's capture delay setting: what a payment without `manualCapture` does */
  captureDelay: CaptureDelay;
  /** "multiple partial captures" enabled; otherwise the rest of a partial capture is cancelled */
  multiplePartialCaptures: boolean;
}

export interface AdyenMerchantInput {
  companyAccount?: string | undefined;
  merchantAccount?: string | undefined;
  apiKey?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  hmacKey?: string | undefined;
  webhookUrl?: string | null | undefined;
  webhookAuth?: WebhookAuth | null | undefined;
  captureDelay?: CaptureDelay | undefined;
  multiplePartialCaptures?: boolean | undefined;
}

export interface Amount {
  value: number;
  currency: string;
}

/** A card stored by the `adyen` token exchange: Adyen's stored payment method. */
export interface StoredCard {
  storedPaymentMethodId: string;
  merchantAccount: string;
  shopperReference: string;
  /** test cards only ever reach the sandbox */
  cardNumber: string;
  /** "03" */
  expiryMonth: string;
  /** "2030" */
  expiryYear: string;
  /** Adyen's variant name: visa, mc, amex, discover */
  brand: string;
  createdAt: string;
}

export type ModificationType = "capture" | "refund" | "cancel" | "reversal" | "technicalCancel";
export type TransactionType = "payment" | ModificationType;

export interface AdyenPayment {
  seq: number;
  pspReference: string;
  merchantAccount: string;
  /** the merchant's `reference`: the notifications' merchantReference */
  reference: string;
  amount: Amount;
  resultCode: "Authorised" | "Refused";
  refusalReason: string | null;
  refusalReasonCode: string | null;
  storedPaymentMethodId: string;
  shopperReference: string;
  shopperInteraction: string;
  recurringProcessingModel: string;
  brand: string;
  cardNumber: string;
  expiryMonth: string;
  expiryYear: string;
  authCode: string | null;
  /** how the payment is captured; "delayed" is an automatic capture after captureDelayHours */
  captureMode: "immediate" | "manual" | "delayed";
  idempotencyKey: string | null;
  /** answers replayed for its Idempotency-Key */
  replays: number;
  /** money state, minor units */
  captured: number;
  refunded: number;
  cancelled: boolean;
  /** a partial capture without "multiple partial captures" released the rest */
  remainderReleased: boolean;
  request: unknown;
  response: unknown;
  createdAt: string;
}

export interface AdyenModification {
  seq: number;
  type: ModificationType;
  pspReference: string;
  /** the payment's; null for a technical cancel that found no payment */
  paymentPspReference: string | null;
  merchantAccount: string;
  reference: string | null;
  /** standalone cancel: the payment reference it named */
  paymentReference: string | null;
  amount: Amount | null;
  /** the outcome the webhook reports: decided when the request arrives */
  success: boolean;
  reason: string;
  /** reversal: what it did */
  action: "cancel" | "refund" | null;
  idempotencyKey: string | null;
  replays: number;
  request: unknown;
  response: unknown;
  createdAt: string;
}

export type DisputeStatus = "Unresponded" | "Responded" | "Expired" | "Undefended" | "Accepted" | "Pending" | "Lost" | "Won";

export interface DefenseDocumentRecord {
  defenseDocumentTypeCode: string;
  contentType: string;
  bytes: Buffer;
  suppliedAt: string;
}

export interface AdyenDispute {
  seq: number;
  pspReference: string;
  paymentPspReference: string;
  merchantAccount: string;
  /** the payment's reference */
  merchantReference: string;
  amount: Amount;
  reasonCode: string;
  schemeCode: string;
  /** the reason code's text, sent as the notifications' `reason` */
  reason: string;
  /** ISO 8601 with offset, as Adyen writes it */
  defensePeriodEndsAt: string;
  defendable: boolean;
  status: DisputeStatus;
  /** send chargebackReasonCode with Adyen's leading space (" 4853") */
  padReasonCode: boolean;
  documents: Map<string, DefenseDocumentRecord>;
  defense: { defenseReasonCode: string; defendedAt: string } | null;
  acceptedAt: string | null;
  /** event codes sent for it, oldest first */
  events: { eventCode: string; at: string; notificationId: string }[];
  createdAt: string;
}

export type NotificationStatus = "pending" | "delivered" | "failing" | "expired" | "notSent";

export interface DeliveryAttempt {
  at: string;
  /** HTTP status, or null when the connection failed or timed out */
  status: number | null;
  error: string | null;
  durationMs: number;
  /** a delivery forced through the control API, outside the retry schedule */
  forced: boolean;
}

export interface AdyenNotification {
  id: string;
  seq: number;
  merchantAccount: string;
  eventCode: string;
  pspReference: string;
  originalReference: string | null;
  success: string;
  /** the JSON body, signed when it was created (a later key rotation does not re-sign it) */
  body: string;
  status: NotificationStatus;
  attempts: DeliveryAttempt[];
  /** epoch ms of the next scheduled attempt; null when none is scheduled */
  nextAttemptAt: number | null;
  createdAt: string;
  /** epoch ms: retries stop 30 days (scaled) after this */
  createdAtMs: number;
}

export interface IdempotencyEntry {
  state: "inFlight" | "done";
  status: number;
  body: unknown;
  /** the payment or modification the answer created, for its replay count */
  pspReference: string | null;
}

export interface AdyenSettings {
  /** multiplies Adyen's clock: retry delays, delayed captures, the 30-day retry window */
  timeScale: number;
  /** how long a webhook delivery may take before it counts as failed (Adyen: 10 s) */
  webhookTimeoutMs: number;
  /** time a Checkout call spends between taking its Idempotency-Key and answering */
  processingDelayMs: number;
}

export const DEFAULT_ADYEN_SETTINGS: Readonly<AdyenSettings> = Object.freeze({ timeScale: 1, webhookTimeoutMs: 10_000, processingDelayMs: 0 });

/** Characters of pspReferences and stored payment method ids: Adyen's are 16 of these. */
const REFERENCE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** 16 characters of the alphabet, random (ids) or from a digest (deterministic tokens). */
export function referenceFrom(bytes: Buffer): string {
  let out = "";
  for (let i = 0; i < 16; i++) out += REFERENCE_ALPHABET[(bytes[i] ?? 0) % REFERENCE_ALPHABET.length];
  return out;
}

export class AdyenStore {
  /** by merchantAccount */
  readonly merchants = new Map<string, AdyenMerchant>();
  /** by `${merchantAccount} ${storedPaymentMethodId}` */
  readonly storedCards = new Map<string, StoredCard>();
  /** by pspReference */
  readonly payments = new Map<string, AdyenPayment>();
  readonly modifications = new Map<string, AdyenModification>();
  readonly disputes = new Map<string, AdyenDispute>();
  readonly notifications = new Map<string, AdyenNotification>();
  /** by companyAccount, then key: Adyen keeps keys per company account, not per endpoint */
  readonly idempotency = new Map<string, Map<string, IdempotencyEntry>>();
  settings: AdyenSettings = { ...DEFAULT_ADYEN_SETTINGS };
  private readonly references = new Set<string>();
  private sequence = 0;

  nextSeq(): number {
    this.sequence += 1;
    return this.sequence;
  }

  /** A fresh pspReference, unique among everything this sandbox ever handed out. */
  newPspReference(): string {
    for (;;) {
      const reference = referenceFrom(crypto.randomBytes(16));
      if (!this.references.has(reference)) {
        this.references.add(reference);
        return reference;
      }
    }
  }

  merchantOfAccount(accountId: string): AdyenMerchant | undefined {
    for (const merchant of this.merchants.values()) if (merchant.accountId === accountId) return merchant;
    return undefined;
  }

  /**
   * Gives a sandbox account its merchant account, generating whatever the input leaves out.
   * @throws Error when the input clashes with another merchant ({@link conflictOf} says why)
   */
  registerMerchant(accountId: string, input: AdyenMerchantInput = {}): AdyenMerchant {
    const merchant = buildMerchant(accountId, input);
    const conflict = this.conflictOf(merchant);
    if (conflict) throw new Error(conflict);
    this.merchants.set(merchant.merchantAccount, merchant);
    return merchant;
  }

  /** Why a merchant built from this input could not join the others, or null when it could. */
  conflictOf(input: AdyenMerchantInput | AdyenMerchant): string | null {
    const merchant = "accountId" in input ? input : buildMerchant("", input);
    if (!isHexKey(merchant.hmacKey)) return "adyen.hmacKey must be a hex string (Adyen's keys are 64 hex digits)";
    for (const other of this.merchants.values()) {
      if (other.merchantAccount === merchant.merchantAccount) return `adyen.merchantAccount ${merchant.merchantAccount} already exists`;
      // A company account belongs to one sandbox account: idempotency keys are kept per company.
      if (other.companyAccount === merchant.companyAccount) return `adyen.companyAccount ${merchant.companyAccount} already exists`;
      if (other.apiKey === merchant.apiKey || other.username === merchant.username) return "adyen.apiKey and adyen.username must not belong to another merchant";
    }
    return null;
  }

  storedCard(merchantAccount: string, id: string): StoredCard | undefined {
    return this.storedCards.get(`${merchantAccount} ${id}`);
  }

  saveStoredCard(card: StoredCard): void {
    this.storedCards.set(`${card.merchantAccount} ${card.storedPaymentMethodId}`, card);
  }

  idempotencyKeys(companyAccount: string): Map<string, IdempotencyEntry> {
    let keys = this.idempotency.get(companyAccount);
    if (!keys) {
      keys = new Map();
      this.idempotency.set(companyAccount, keys);
    }
    return keys;
  }
}

function buildMerchant(accountId: string, input: AdyenMerchantInput): AdyenMerchant {
  const company = input.companyAccount ?? `SandboxCompany${crypto.randomBytes(4).toString("hex").toUpperCase()}`;
  return {
    accountId,
    companyAccount: company,
    merchantAccount: input.merchantAccount ?? `${company}ECOM`,
    apiKey: input.apiKey ?? `AQE_test_${crypto.randomBytes(24).toString("base64url")}`,
    username: input.username ?? `ws_${crypto.randomInt(100000, 1000000)}@Company.${company}`,
    password: input.password ?? crypto.randomBytes(12).toString("base64url"),
    hmacKey: (input.hmacKey ?? crypto.randomBytes(32).toString("hex")).toUpperCase(),
    webhookUrl: input.webhookUrl ?? null,
    webhookAuth: input.webhookAuth ? { ...input.webhookAuth } : null,
    captureDelay: input.captureDelay ?? "immediate",
    multiplePartialCaptures: input.multiplePartialCaptures ?? true,
  };
}
