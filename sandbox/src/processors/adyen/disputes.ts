import type { Log } from "../../server";
import { adyenDateTime } from "./dates";
import type { AdyenDispute, AdyenMerchant, AdyenPayment, AdyenStore, DefenseDocumentRecord, DisputeStatus } from "./state";
import type { Webhooks } from "./webhooks";

/**
 * Disputes as Adyen keeps them: raised on a payment (through the control API; a real issuer
 * raises them at Adyen), announced by notification webhooks, answered through the Disputes API
 * (defense reasons, defense documents, defend, accept), and decided by the card scheme (again
 * through the control API). The HTTP side (dispute-api.ts) and the control API both go through
 * this class, so a dispute only ever changes in one way.
 */

export interface DefenseDocumentType {
  defenseDocumentTypeCode: string;
  requirementLevel: "Required" | "Optional" | "OneOrMore" | "AlternativeRequired";
}

interface DefenseReasonRule {
  defenseReasonCode: string;
  defenseDocumentTypes: readonly DefenseDocumentType[];
}

/**
 * The reasons of the DisputeService-v30 spec's `retrieve-defense-reasons-200` example, in its
 * order, offered for every dispute: Adyen does not publish its per-reason-code lists. The one that
 * fits card-scan evidence of a card-absent fraud (Visa 10.4, Mastercard 4837, 4853 …),
 * `SupplyDefenseMaterial` with a Required `DefenseMaterial`, comes last, so a client has to choose
 * rather than take the first.
 */
const SPEC_EXAMPLE_REASONS: readonly DefenseReasonRule[] = [
  {
    defenseReasonCode: "GoodsNotReturned",
    defenseDocumentTypes: [
      { defenseDocumentTypeCode: "TIDorInvoice", requirementLevel: "Optional" },
      { defenseDocumentTypeCode: "GoodsNotReturned", requirementLevel: "Required" },
    ],
  },
  {
    defenseReasonCode: "GoodsRepairedOrReplaced",
    defenseDocumentTypes: [
      { defenseDocumentTypeCode: "TIDorInvoice", requirementLevel: "Optional" },
      { defenseDocumentTypeCode: "GoodsRepairedOrReplaced", requirementLevel: "Required" },
    ],
  },
  {
    defenseReasonCode: "GoodsWereAsDescribed",
    defenseDocumentTypes: [
      { defenseDocumentTypeCode: "GoodsWereAsDescribed", requirementLevel: "Required" },
      { defenseDocumentTypeCode: "TIDorInvoice", requirementLevel: "Required" },
    ],
  },
  {
    defenseReasonCode: "SupplyDefenseMaterial",
    defenseDocumentTypes: [
      { defenseDocumentTypeCode: "TIDorInvoice", requirementLevel: "Optional" },
      { defenseDocumentTypeCode: "DefenseMaterial", requirementLevel: "Required" },
    ],
  },
];

/** The text Adyen puts in the dispute notifications' `reason`. */
export const REASON_TEXTS: Readonly<Record<string, string>> = {
  "10.4": "Other Fraud-Card Absent Environment",
  "13.1": "Merchandise/Services Not Received",
  "13.3": "Not as Described or Defective Merchandise/Services",
  "4837": "No Cardholder Authorization",
  "4853": "Cardholder Dispute",
  "4863": "Cardholder Does Not Recognize - Potential Fraud",
  F29: "Card Not Present",
  UA02: "Fraud - Card Not Present Transaction",
};

/** The brand's card-absent fraud code and its scheme code: what a dispute raised without a reason gets. */
const DEFAULT_REASON: Readonly<Record<string, { reasonCode: string; schemeCode: string }>> = {
  visa: { reasonCode: "10.4", schemeCode: "visa" },
  mc: { reasonCode: "4837", schemeCode: "mc" },
  amex: { reasonCode: "F29", schemeCode: "amex" },
  discover: { reasonCode: "UA02", schemeCode: "discover" },
};

/** Decisions the control API takes, as the event codes they send and the status they leave. */
export const DECISIONS = {
  CHARGEBACK_REVERSED: "Won",
  PREARBITRATION_WON: "Won",
  PREARBITRATION_LOST: "Lost",
} as const satisfies Record<string, DisputeStatus>;
export type Decision = keyof typeof DECISIONS;

/** What Adyen accepts as defense documents, with its size limits (docs: defense-requirements). */
export const DOCUMENT_LIMITS: Readonly<Record<string, number>> = {
  "application/pdf": 2 * 1024 * 1024,
  "image/jpeg": 10 * 1024 * 1024,
  "image/tiff": 10 * 1024 * 1024,
};

/** Disputes API answers: `disputeServiceResult`, success or a business failure (still HTTP 200). */
export type ServiceResult = { success: true } | { success: false; errorMessage: string };
const fail = (errorMessage: string): ServiceResult => ({ success: false, errorMessage });
const OK: ServiceResult = { success: true };

/** Business failures; "Dispute expired.", "Dispute is not defendable." and "Error retrieving dispute." are Adyen's own words. */
export const DISPUTE_ERRORS = {
  notFound: "Error retrieving dispute.",
  expired: "Dispute expired.",
  notDefendable: "Dispute is not defendable.",
  defended: "Dispute has already been defended.",
  accepted: "Dispute has already been accepted.",
  closed: "Dispute is closed.",
  unknownReason: "Defense reason code is not applicable to this dispute.",
  noDocuments: "No defense documents supplied.",
  documentNotFound: "Defense document not found.",
} as const;

export class DisputeInputError extends Error {}

export interface RaiseInput {
  payment: AdyenPayment;
  reasonCode?: string | undefined;
  schemeCode?: string | undefined;
  reason?: string | undefined;
  amount?: number | undefined;
  defensePeriodEndsAt?: string | undefined;
  defendable?: boolean | undefined;
  notificationOfChargeback?: boolean | undefined;
  padReasonCode?: boolean | undefined;
}

const DEFAULT_DEFENSE_DAYS = 14;

export class AdyenDisputes {
  constructor(
    private readonly store: AdyenStore,
    private readonly webhooks: Webhooks,
    private readonly log: Log,
  ) {}

  /** Opens a dispute on a payment and announces it: NOTIFICATION_OF_CHARGEBACK (unless told not to), then CHARGEBACK. */
  raise(merchant: AdyenMerchant, input: RaiseInput): AdyenDispute {
    const { payment } = input;
    if (payment.resultCode !== "Authorised") throw new DisputeInputError("only an authorised payment can be disputed");
    const brandDefault = DEFAULT_REASON[payment.brand] ?? { reasonCode: "10.4", schemeCode: payment.brand };
    const reasonCode = input.reasonCode ?? brandDefault.reasonCode;
    const reason = input.reason ?? REASON_TEXTS[reasonCode];
    if (reason === undefined) throw new DisputeInputError(`reason is required for reason code ${reasonCode}, whose text the sandbox does not know`);
    const disputable = payment.captured > 0 ? payment.captured : payment.amount.value;
    const amount = input.amount ?? disputable;
    if (!Number.isInteger(amount) || amount < 1 || amount > disputable) {
      throw new DisputeInputError(`amount must be a whole number of minor units from 1 to ${disputable}`);
    }
    const dispute: AdyenDispute = {
      seq: this.store.nextSeq(),
      pspReference: this.store.newPspReference(),
      paymentPspReference: payment.pspReference,
      merchantAccount: payment.merchantAccount,
      merchantReference: payment.reference,
      amount: { value: amount, currency: payment.amount.currency },
      reasonCode,
      schemeCode: input.schemeCode ?? brandDefault.schemeCode,
      reason,
      defensePeriodEndsAt: input.defensePeriodEndsAt ?? adyenDateTime(Date.now() + DEFAULT_DEFENSE_DAYS * 86_400_000),
      defendable: input.defendable ?? true,
      status: "Unresponded",
      padReasonCode: input.padReasonCode ?? true,
      documents: new Map(),
      defense: null,
      acceptedAt: null,
      events: [],
      createdAt: new Date().toISOString(),
    };
    this.store.disputes.set(dispute.pspReference, dispute);
    if (input.notificationOfChargeback ?? true) this.notify(merchant, dispute, "NOTIFICATION_OF_CHARGEBACK", { originalReference: true });
    this.notify(merchant, dispute, "CHARGEBACK", { originalReference: true });
    this.log("info", `adyen: dispute ${dispute.pspReference} (${reasonCode}) raised on ${payment.pspReference}`);
    return dispute;
  }

  /** The scheme's decision, sent as its event code. A decided dispute takes no more decisions except pre-arbitration after a reversal. */
  decide(merchant: AdyenMerchant, dispute: AdyenDispute, decision: Decision, options: { originalReference?: boolean } = {}): void {
    if (dispute.status === "Accepted") throw new DisputeInputError("the merchant accepted this dispute");
    const done = dispute.events.map((e) => e.eventCode);
    if (done.includes("PREARBITRATION_WON") || done.includes("PREARBITRATION_LOST")) throw new DisputeInputError("the dispute is closed");
    if (decision === "CHARGEBACK_REVERSED" && done.includes("CHARGEBACK_REVERSED")) throw new DisputeInputError("the chargeback was already reversed");
    dispute.status = DECISIONS[decision];
    // The spec's examples of these events carry no originalReference: receivers key disputes by pspReference.
    this.notify(merchant, dispute, decision, { originalReference: options.originalReference ?? false });
  }

  /**
   * Sends any dispute event (SECOND_CHARGEBACK, REQUEST_FOR_INFORMATION, codes receivers must
   * ignore …) with the dispute's data, for receivers' tests.
   */
  notify(
    merchant: AdyenMerchant,
    dispute: AdyenDispute,
    eventCode: string,
    options: { originalReference?: boolean; success?: boolean; reason?: string; status?: DisputeStatus } = {},
  ): void {
    if (options.status) dispute.status = options.status;
    const reasonCode = dispute.padReasonCode ? ` ${dispute.reasonCode}` : dispute.reasonCode;
    const payment = this.store.payments.get(dispute.paymentPspReference);
    const capture = [...this.store.modifications.values()].find(
      (m) => m.type === "capture" && m.success && m.paymentPspReference === dispute.paymentPspReference,
    );
    const notification = this.webhooks.enqueue({
      merchant,
      eventCode,
      pspReference: dispute.pspReference,
      originalReference: options.originalReference === false ? null : dispute.paymentPspReference,
      merchantReference: dispute.merchantReference,
      amount: dispute.amount,
      success: options.success ?? true,
      reason: options.reason ?? dispute.reason,
      paymentMethod: payment?.brand,
      additionalData: {
        autoDefended: "false",
        chargebackReasonCode: reasonCode,
        chargebackSchemeCode: dispute.schemeCode,
        defendable: String(this.defendable(dispute)),
        defensePeriodEndsAt: dispute.defensePeriodEndsAt,
        disputeStatus: dispute.status,
        ...(eventCode === "REQUEST_FOR_INFORMATION" ? { rfiReasonCode: dispute.reasonCode, rfiSchemeCode: dispute.schemeCode } : {}),
        ...(capture ? { capturePspReference: capture.pspReference } : {}),
        ...(payment ? { paymentMethodVariant: payment.brand, shopperReference: payment.shopperReference } : {}),
      },
    });
    dispute.events.push({ eventCode, at: new Date().toISOString(), notificationId: notification.id });
  }

  // ---- the Disputes API ----

  /** The reasons this dispute allows, with what each needs and whether the documents supplied satisfy it. */
  defenseReasons(dispute: AdyenDispute): { result: ServiceResult; defenseReasons?: unknown[] } {
    if (!dispute.defendable) return { result: fail(DISPUTE_ERRORS.notDefendable) };
    const defenseReasons = SPEC_EXAMPLE_REASONS.map((rule) => ({
      defenseDocumentTypes: rule.defenseDocumentTypes.map((t) => ({
        available: dispute.documents.has(t.defenseDocumentTypeCode),
        defenseDocumentTypeCode: t.defenseDocumentTypeCode,
        requirementLevel: t.requirementLevel,
      })),
      defenseReasonCode: rule.defenseReasonCode,
      satisfied: satisfied(rule, dispute.documents),
    }));
    return { result: OK, defenseReasons };
  }

  /**
   * Stores the documents, replacing any of the same type. All are checked before any is kept, so a
   * refused request changes nothing.
   */
  supply(dispute: AdyenDispute, documents: { defenseDocumentTypeCode: string; contentType: string; content: string }[]): ServiceResult {
    const closed = this.openForDefense(dispute);
    if (closed) return fail(closed);
    if (documents.length === 0) return fail(DISPUTE_ERRORS.noDocuments);
    const types = new Set(SPEC_EXAMPLE_REASONS.flatMap((r) => r.defenseDocumentTypes.map((t) => t.defenseDocumentTypeCode)));
    const accepted: DefenseDocumentRecord[] = [];
    for (const document of documents) {
      if (!types.has(document.defenseDocumentTypeCode)) return fail(`Invalid defense document type code: ${document.defenseDocumentTypeCode.slice(0, 100)}.`);
      const limit = DOCUMENT_LIMITS[document.contentType];
      if (limit === undefined) return fail(`Unsupported content type: ${document.contentType.slice(0, 100)}. Use application/pdf, image/jpeg or image/tiff.`);
      const bytes = decodeBase64(document.content);
      if (bytes === null || bytes.length === 0) return fail("Invalid document content: not base64.");
      if (!matchesContentType(bytes, document.contentType)) return fail(`Invalid document content: not a ${document.contentType} file.`);
      if (bytes.length > limit) return fail(`Document size exceeds the limit of ${limit / (1024 * 1024)} MB for ${document.contentType}.`);
      accepted.push({ defenseDocumentTypeCode: document.defenseDocumentTypeCode, contentType: document.contentType, bytes, suppliedAt: new Date().toISOString() });
    }
    for (const record of accepted) dispute.documents.set(record.defenseDocumentTypeCode, record);
    return OK;
  }

  deleteDocument(dispute: AdyenDispute, defenseDocumentType: string): ServiceResult {
    const closed = this.openForDefense(dispute);
    if (closed) return fail(closed);
    if (!dispute.documents.delete(defenseDocumentType)) return fail(DISPUTE_ERRORS.documentNotFound);
    return OK;
  }

  defend(dispute: AdyenDispute, defenseReasonCode: string): ServiceResult {
    const closed = this.openForDefense(dispute);
    if (closed) return fail(closed);
    const rule = SPEC_EXAMPLE_REASONS.find((r) => r.defenseReasonCode === defenseReasonCode);
    if (!rule) return fail(DISPUTE_ERRORS.unknownReason);
    const missing = missingDocuments(rule, dispute.documents);
    if (missing.length > 0) return fail(`Required defense documents are missing: ${missing.join(", ")}.`);
    dispute.defense = { defenseReasonCode, defendedAt: new Date().toISOString() };
    dispute.status = "Responded";
    this.log("info", `adyen: dispute ${dispute.pspReference} defended with ${defenseReasonCode}`);
    return OK;
  }

  accept(dispute: AdyenDispute): ServiceResult {
    if (dispute.defense) return fail(DISPUTE_ERRORS.defended);
    if (dispute.acceptedAt) return fail(DISPUTE_ERRORS.accepted);
    if (dispute.status === "Won" || dispute.status === "Lost") return fail(DISPUTE_ERRORS.closed);
    if (this.expired(dispute)) return fail(DISPUTE_ERRORS.expired);
    dispute.acceptedAt = new Date().toISOString();
    dispute.status = "Accepted";
    this.log("info", `adyen: dispute ${dispute.pspReference} accepted`);
    return OK;
  }

  /** Past the end of its defense period. */
  expired(dispute: AdyenDispute): boolean {
    return Date.parse(dispute.defensePeriodEndsAt) <= Date.now();
  }

  private defendable(dispute: AdyenDispute): boolean {
    return dispute.defendable && dispute.status === "Unresponded" && !this.expired(dispute);
  }

  /** Why the dispute takes no more documents or defenses, or null while it does. */
  private openForDefense(dispute: AdyenDispute): string | null {
    if (!dispute.defendable) return DISPUTE_ERRORS.notDefendable;
    if (dispute.defense) return DISPUTE_ERRORS.defended;
    if (dispute.acceptedAt) return DISPUTE_ERRORS.accepted;
    if (dispute.status === "Won" || dispute.status === "Lost") return DISPUTE_ERRORS.closed;
    if (this.expired(dispute)) return DISPUTE_ERRORS.expired;
    return null;
  }
}

/** The Required types missing; of AlternativeRequired / OneOrMore types at least one must be there. */
function missingDocuments(rule: DefenseReasonRule, documents: ReadonlyMap<string, unknown>): string[] {
  const missing = rule.defenseDocumentTypes
    .filter((t) => t.requirementLevel === "Required" && !documents.has(t.defenseDocumentTypeCode))
    .map((t) => t.defenseDocumentTypeCode);
  const alternatives = rule.defenseDocumentTypes.filter((t) => t.requirementLevel === "AlternativeRequired" || t.requirementLevel === "OneOrMore");
  if (alternatives.length > 0 && !alternatives.some((t) => documents.has(t.defenseDocumentTypeCode))) {
    missing.push(alternatives.map((t) => t.defenseDocumentTypeCode).join(" or "));
  }
  return missing;
}

function satisfied(rule: DefenseReasonRule, documents: ReadonlyMap<string, unknown>): boolean {
  return missingDocuments(rule, documents).length === 0;
}

/** Strict base64 (the spec's `format: byte`): anything Buffer.from would silently skip is refused. */
function decodeBase64(content: string): Buffer | null {
  const compact = content.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) return null;
  return Buffer.from(compact, "base64");
}

/** The file's magic bytes must agree with its declared type: a reviewer could not open it otherwise. */
function matchesContentType(bytes: Buffer, contentType: string): boolean {
  switch (contentType) {
    case "application/pdf":
      return bytes.subarray(0, 5).toString("latin1") === "%PDF-";
    case "image/jpeg":
      return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    case "image/tiff": {
      const head = bytes.subarray(0, 4).toString("latin1");
      return head === "II*\0" || head === "MM\0*";
    }
    default:
      return false;
  }
}
