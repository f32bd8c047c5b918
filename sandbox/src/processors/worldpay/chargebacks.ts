import type { OriginalPayment } from "./cnp";
import type { Store } from "../../store";
import { cardType, randomDigits } from "../../util";

/**
 * Chargeback cases as Worldpay eComm keeps them (the Chargeback API's `chargebackApiCase`): the
 * case, its queue and cycle, its activity list and its evidence documents, with the rules that
 * decide which activity is allowed when. The HTTP side (chargeback-api.ts) and the control API
 * both go through this class, so a case only ever changes in one way.
 */

export const CYCLES = [
  "First Chargeback",
  "Retrieval Request",
  "Pre-Arbitration",
  "Issuer Declined Pre-Arbitration",
  "VISA Pre-Arbitration/Arbitration",
  "Arbitration",
] as const;
export type Cycle = (typeof CYCLES)[number];

/** The queues a case moves through: whose turn it is, or who bore the loss. */
export const QUEUES = {
  merchant: "Merchant",
  worldpay: "Vantiv",
  merchantAssumed: "Merchant Assumed",
  networkAssumed: "Network Assumed",
} as const;
export type Queue = (typeof QUEUES)[keyof typeof QUEUES];

/** `activityType` of `<chargebackUpdateRequest>` (the schema's enumeration). */
export const UPDATE_ACTIVITIES = [
  "ASSIGN_TO_USER",
  "ADD_NOTE",
  "MERCHANT_ACCEPTS_LIABILITY",
  "MERCHANT_REPRESENT",
  "MERCHANT_RESPOND",
  "MERCHANT_REQUESTS_ARBITRATION",
] as const;
export type UpdateActivity = (typeof UPDATE_ACTIVITIES)[number];

interface ActivityRule {
  /** how the activity reads in the case's activity list */
  label: string;
  /** true: only while the case waits for the merchant */
  merchantQueueOnly: boolean;
  /** the cycles it is allowed in; null: any */
  cycles: readonly Cycle[] | null;
  /** where it sends the case; null: it stays */
  toQueue: Queue | null;
}

/**
 * Which update Worldpay takes when. A note can be added at any time; everything else needs the
 * case in the merchant's queue, and responding needs the cycle it answers (a representment
 * answers a chargeback, a response answers a retrieval request, arbitration follows a declined
 * pre-arbitration).
 */
const RULES: Readonly<Record<UpdateActivity, ActivityRule>> = {
  ADD_NOTE: { label: "Add Note", merchantQueueOnly: false, cycles: null, toQueue: null },
  ASSIGN_TO_USER: { label: "Assign To User", merchantQueueOnly: true, cycles: null, toQueue: null },
  MERCHANT_ACCEPTS_LIABILITY: { label: "Merchant Accepts Liability", merchantQueueOnly: true, cycles: null, toQueue: QUEUES.merchantAssumed },
  MERCHANT_REPRESENT: {
    label: "Merchant Represent",
    merchantQueueOnly: true,
    cycles: ["First Chargeback", "Pre-Arbitration", "Issuer Declined Pre-Arbitration"],
    toQueue: QUEUES.worldpay,
  },
  MERCHANT_RESPOND: { label: "Merchant Respond", merchantQueueOnly: true, cycles: ["Retrieval Request"], toQueue: QUEUES.worldpay },
  MERCHANT_REQUESTS_ARBITRATION: {
    label: "Merchant Requests Arbitration",
    merchantQueueOnly: true,
    cycles: ["Issuer Declined Pre-Arbitration", "VISA Pre-Arbitration/Arbitration"],
    toQueue: QUEUES.worldpay,
  },
};

/** Cycles in which the merchant can still send evidence (document code 010 otherwise). */
const DOCUMENT_CYCLES: readonly Cycle[] = ["First Chargeback", "Retrieval Request", "Pre-Arbitration", "Issuer Declined Pre-Arbitration"];

/** Reason codes the sandbox knows a description for; any other code needs one given. */
export const REASON_CODES: Readonly<Record<string, string>> = {
  "10.4": "Other Fraud - Card Absent Environment",
  "13.1": "Merchandise/Services Not Received",
  "13.3": "Not as Described or Defective Merchandise/Services",
  "4837": "No Cardholder Authorization",
  "4853": "Cardholder Dispute",
  "4863": "Cardholder Does Not Recognize - Potential Fraud",
  F29: "Card Not Present",
  UA02: "Fraud - Card Not Present Transaction",
};
/** The card-not-present fraud code of each brand: the dispute the plugin exists for. */
const DEFAULT_REASON: Readonly<Record<string, string>> = { VI: "10.4", MC: "4837", AX: "F29", DI: "UA02" };

export const DEFAULT_REPLY_DAYS = 14;
export const DEFAULT_MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
/** Worldpay answers 008 "Max Document Limit Per Case Reached" past this many. */
export const MAX_DOCUMENTS_PER_CASE = 10;

export interface ChargebackActivity {
  activityDate: string;
  activityType: string;
  fromQueue: string;
  toQueue: string;
  settlementAmount?: number;
  settlementCurrencyType?: string;
  notes?: string;
  assignedTo?: string;
}

export interface ChargebackDocument {
  documentId: string;
  contentType: DocumentType;
  bytes: Buffer;
  uploadedAt: string;
  replacedAt: string | null;
}

/** A case; field names are the Chargeback API's. */
export interface ChargebackCase {
  caseId: string;
  merchantId: string;
  dayIssuedByBank: string;
  dateReceivedByVantivCnp: string;
  vantivCnpTxnId: string;
  cycle: Cycle;
  orderId: string | null;
  cardNumberLast4: string;
  cardType: string;
  chargebackAmount: number;
  chargebackCurrencyType: string;
  originalTxnDay: string;
  chargebackType: string;
  representedAmount: number | null;
  representedCurrencyType: string | null;
  reasonCode: string;
  reasonCodeDescription: string;
  currentQueue: Queue;
  acquirerReferenceNumber: string;
  chargebackReferenceNumber: string;
  merchantTxnId: string | null;
  bin: string;
  token: string | null;
  customerId: string | null;
  paymentAmount: number;
  replyByDay: string;
  /** oldest first; the API lists them newest first */
  activities: ChargebackActivity[];
  documents: Map<string, ChargebackDocument>;
  /** for searches by card; never rendered */
  cardNumber: string | null;
  expDate: string | null;
}

export interface RaiseInput {
  payment: OriginalPayment;
  reasonCode?: string | undefined;
  reasonCodeDescription?: string | undefined;
  amount?: number | undefined;
  currency?: string | undefined;
  cycle?: Cycle | undefined;
  replyBy?: string | undefined;
  dayIssuedByBank?: string | undefined;
  note?: string | undefined;
}

/** A refusal of the control API's, with the field it is about. */
export class ChargebackInputError extends Error {}

/** A refusal of Worldpay's: 400 "Cannot perform activity <…> for case <…> in queue <…>". */
export class ActivityRefused extends Error {}

export type DocumentType = "application/pdf" | "image/gif" | "image/jpeg" | "image/png" | "image/tiff";

/** The signatures of the formats Worldpay takes (PDF and the common image formats). */
const SIGNATURES: readonly { type: DocumentType; test: (b: Buffer) => boolean }[] = [
  { type: "application/pdf", test: (b) => b.subarray(0, 5).toString("latin1") === "%PDF-" },
  { type: "image/gif", test: (b) => ["GIF87a", "GIF89a"].includes(b.subarray(0, 6).toString("latin1")) },
  { type: "image/jpeg", test: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: "image/png", test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: "image/tiff", test: (b) => ["49492a00", "4d4d002a"].includes(b.subarray(0, 4).toString("hex")) },
];
/** Media types clients send for those formats (the SDKs derive them from file extensions). */
const MEDIA_TYPES: Readonly<Record<string, DocumentType>> = {
  "application/pdf": "application/pdf",
  "image/gif": "image/gif",
  "image/jpeg": "image/jpeg",
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/png": "image/png",
  "image/tiff": "image/tiff",
  "image/tif": "image/tiff",
};

/**
 * The format of a document, when its bytes are one Worldpay takes and agree with the declared
 * media type (if any); null otherwise ("Invalid File Content").
 */
export function documentType(bytes: Buffer, declared: string): DocumentType | null {
  const detected = SIGNATURES.find((s) => s.test(bytes))?.type ?? null;
  if (detected === null || declared === "") return detected;
  return MEDIA_TYPES[declared] === detected ? detected : null;
}

export function isDate(value: string): boolean {
  if (!/^\d{4}-\d\d-\d\d$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export class Chargebacks {
  private readonly now: () => Date;
  private readonly arns = new Set<string>();

  constructor(
    private readonly store: Store,
    options: { now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  today(): string {
    return this.now().toISOString().slice(0, 10);
  }

  /**
   * Opens a case on an approved authorization or sale. Validates everything before it changes
   * anything, so a bulk raise can check all its cases first.
   */
  prepare(input: RaiseInput): () => ChargebackCase {
    const { payment } = input;
    const brand = payment.cardNumber ? (cardType(payment.cardNumber) ?? "") : "";
    const amount = input.amount ?? payment.amount;
    if (!Number.isInteger(amount) || amount < 1 || amount > payment.amount) {
      throw new ChargebackInputError(`amount must be a whole number of minor units from 1 to ${payment.amount} (the original ${payment.type})`);
    }
    const reasonCode = input.reasonCode ?? DEFAULT_REASON[brand] ?? "4837";
    const reasonCodeDescription = input.reasonCodeDescription ?? REASON_CODES[reasonCode];
    if (reasonCodeDescription === undefined) {
      throw new ChargebackInputError(`reasonCodeDescription is required for reason code ${reasonCode}, which the sandbox does not know`);
    }
    const today = this.today();
    const replyByDay = input.replyBy ?? addDays(today, DEFAULT_REPLY_DAYS);
    const dayIssuedByBank = input.dayIssuedByBank ?? addDays(today, -1);
    const currency = input.currency ?? "USD";
    const last4 = (payment.cardNumber ?? payment.token ?? "").slice(-4);
    return () => {
      const kase: ChargebackCase = {
        caseId: this.newCaseId(),
        merchantId: payment.merchantId,
        dayIssuedByBank,
        dateReceivedByVantivCnp: today,
        vantivCnpTxnId: payment.cnpTxnId,
        cycle: input.cycle ?? "First Chargeback",
        orderId: payment.orderId,
        cardNumberLast4: last4,
        cardType: brand,
        chargebackAmount: amount,
        chargebackCurrencyType: currency,
        originalTxnDay: payment.createdAt.slice(0, 10),
        chargebackType: "Deposit",
        representedAmount: null,
        representedCurrencyType: null,
        reasonCode,
        reasonCodeDescription,
        currentQueue: QUEUES.merchant,
        acquirerReferenceNumber: this.newArn(),
        chargebackReferenceNumber: randomDigits(10),
        merchantTxnId: payment.id,
        bin: payment.cardNumber ? payment.cardNumber.slice(0, 6) : "",
        token: payment.token,
        customerId: payment.customerId,
        paymentAmount: payment.amount,
        replyByDay,
        activities: [
          {
            activityDate: today,
            activityType: "Assign To Merchant",
            fromQueue: QUEUES.worldpay,
            toQueue: QUEUES.merchant,
            // The chargeback debits the merchant: the financial activity of the case.
            settlementAmount: amount,
            settlementCurrencyType: currency,
            ...(input.note ? { notes: input.note } : {}),
          },
        ],
        documents: new Map(),
        cardNumber: payment.cardNumber,
        expDate: payment.expDate,
      };
      this.store.chargebacks.set(kase.caseId, kase);
      return kase;
    };
  }

  /**
   * A case, brought up to date first: one still waiting for the merchant after its reply-by
   * day has gone to the merchant's loss, as Worldpay does with unanswered cases.
   */
  get(caseId: string): ChargebackCase | undefined {
    const kase = this.store.chargebacks.get(caseId);
    if (kase) this.expireIfDue(kase);
    return kase;
  }

  /** Every case, each brought up to date. */
  all(): ChargebackCase[] {
    const cases = [...this.store.chargebacks.values()];
    for (const kase of cases) this.expireIfDue(kase);
    return cases;
  }

  private expireIfDue(kase: ChargebackCase): void {
    if (kase.currentQueue !== QUEUES.merchant || this.today() <= kase.replyByDay) return;
    this.move(kase, QUEUES.merchantAssumed, {
      activityDate: addDays(kase.replyByDay, 1),
      activityType: "Reply Period Expired",
      notes: `No response by ${kase.replyByDay}`,
    });
  }

  /** `PUT chargebacks/<caseId>`: refuses what Worldpay refuses, else records the activity. */
  update(kase: ChargebackCase, request: { activityType: UpdateActivity; note?: string | undefined; assignedTo?: string | undefined; representedAmount?: number | undefined }): void {
    const rule = RULES[request.activityType];
    const queueOk = !rule.merchantQueueOnly || kase.currentQueue === QUEUES.merchant;
    if (!queueOk) throw new ActivityRefused(`Cannot perform activity <${rule.label}> for case <${kase.caseId}> in queue <${kase.currentQueue}>`);
    if (rule.cycles && !rule.cycles.includes(kase.cycle)) {
      throw new ActivityRefused(`Cannot perform activity <${rule.label}> for case <${kase.caseId}> in cycle <${kase.cycle}>`);
    }
    if (request.activityType === "ASSIGN_TO_USER" && !request.assignedTo) {
      throw new ActivityRefused(`Cannot perform activity <${rule.label}> for case <${kase.caseId}> without assignedTo`);
    }
    const represented = request.activityType === "MERCHANT_REPRESENT" ? request.representedAmount : undefined;
    if (represented !== undefined && (represented < 1 || represented > kase.chargebackAmount)) {
      throw new ActivityRefused(`representedAmount must be from 1 to the chargeback amount (${kase.chargebackAmount})`);
    }
    if (request.activityType === "MERCHANT_REPRESENT") {
      kase.representedAmount = represented ?? kase.chargebackAmount;
      kase.representedCurrencyType = kase.chargebackCurrencyType;
    }
    this.move(kase, rule.toQueue ?? kase.currentQueue, {
      activityDate: this.today(),
      activityType: rule.label,
      ...(represented !== undefined ? { settlementAmount: represented, settlementCurrencyType: kase.chargebackCurrencyType } : {}),
      ...(request.note !== undefined ? { notes: request.note } : {}),
      ...(request.assignedTo !== undefined ? { assignedTo: request.assignedTo } : {}),
    });
  }

  /**
   * The network's decision (control API): won gives the money back (the case goes to the
   * network's loss), lost leaves it with the merchant.
   */
  decide(kase: ChargebackCase, outcome: "won" | "lost", note: string | undefined): void {
    if (kase.currentQueue === QUEUES.merchantAssumed || kase.currentQueue === QUEUES.networkAssumed) {
      throw new ChargebackInputError(`case ${kase.caseId} is already closed (queue ${kase.currentQueue})`);
    }
    const won = outcome === "won";
    const refund = kase.representedAmount ?? kase.chargebackAmount;
    this.move(kase, won ? QUEUES.networkAssumed : QUEUES.merchantAssumed, {
      activityDate: this.today(),
      activityType: won ? "Case Won" : "Case Lost",
      ...(won ? { settlementAmount: refund, settlementCurrencyType: kase.chargebackCurrencyType } : {}),
      ...(note !== undefined ? { notes: note } : {}),
    });
  }

  /** Document response codes that depend on the case alone (004, 010), or null. */
  documentRefusal(kase: ChargebackCase): DocumentOutcome | null {
    if (kase.currentQueue !== QUEUES.merchant) return DOCUMENT_CODES.notInMerchantQueue;
    if (!DOCUMENT_CYCLES.includes(kase.cycle)) return DOCUMENT_CODES.invalidCycle;
    return null;
  }

  /** Appends an activity, moving the case to `toQueue` (which may be where it is). */
  private move(kase: ChargebackCase, toQueue: Queue, activity: Omit<ChargebackActivity, "fromQueue" | "toQueue">): void {
    const { activityDate, activityType, ...rest } = activity;
    kase.activities.push({ activityDate, activityType, fromQueue: kase.currentQueue, toQueue, ...rest });
    kase.currentQueue = toQueue;
  }

  private newCaseId(): string {
    for (;;) {
      const id = randomDigits(12);
      if (!this.store.chargebacks.has(id)) return id;
    }
  }

  /** 23 digits, like an acquirer reference number. */
  private newArn(): string {
    for (;;) {
      const arn = randomDigits(23);
      if (!this.arns.has(arn)) {
        this.arns.add(arn);
        return arn;
      }
    }
  }
}

export type DocumentOutcome = readonly [code: string, message: string];

/** `responseCode` / `responseMessage` of `<chargebackDocumentUploadResponse>`. */
export const DOCUMENT_CODES = {
  success: ["000", "Success"],
  caseNotFound: ["003", "Case Not Found"],
  notInMerchantQueue: ["004", "Case Not In Merchant Queue"],
  alreadyExists: ["005", "Document already exists"],
  maxDocuments: ["008", "Max Document Limit Per Case Reached"],
  documentNotFound: ["009", "Document Not Found"],
  invalidCycle: ["010", "Case not in valid cycle"],
  tooLarge: ["012", "Filesize exceeds limit"],
  invalidContent: ["013", "Invalid File Content"],
} as const satisfies Record<string, DocumentOutcome>;
