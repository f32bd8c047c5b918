import { HttpAuthError, HttpClient, HttpStatusError } from "../../lib/http"
import type { ReasonFamily } from "../../lib/reason-family"
import type { DisputeGatewayHttpOptions } from "../definition"
import {
  DisputeCaseRecord,
  DisputeGateway,
  DisputeGatewayConfigurationError,
  DisputeGatewayProtocolError,
  DisputeGatewayRefusal,
  DisputeUpdateResult,
  ProcessorWebhook,
} from "../types"
import { serviceErrorOf } from "./checkout-wire"
import {
  ALREADY_ACCEPTED,
  ALREADY_DEFENDED,
  chooseDefenseReason,
  DefenseReason,
  DisputeAnswer,
  disputeAnswerSchema,
  DOCUMENT_NOT_FOUND,
  EVIDENCE_DOCUMENT_TYPE,
} from "./dispute-wire"
import { AdyenWebhook } from "./notification-events"
import { ADYEN, AdyenConfig, adyenAuthHeaders, adyenDisputesUrl } from "./options"

/** What `AdyenDisputeGateway` is built from: Adyen's options, and how the module talks HTTP. */
export type AdyenDisputeGatewayOptions = Omit<AdyenConfig, "type"> & DisputeGatewayHttpOptions

/** Adyen's dispute references (`pspReference`): 16 characters, letters and digits. Checked before anything is sent. */
const DISPUTE_REFERENCE = /^[A-Za-z0-9]{1,64}$/
/** The content types Adyen takes as defense documents (docs: defense-requirements). */
const CONTENT_TYPES = new Set(["application/pdf", "image/jpeg", "image/tiff"])
/** Adyen's PDF limit (docs: defense-requirements); JPEG and TIFF may be 10 MB. */
const ADYEN_MAX_PDF_BYTES = 2 * 1024 * 1024

/**
 * Adyen's Disputes API v30, the dispute side for merchants whose payments go
 * through Adyen's Checkout API. Disputes are pushed, not listed: they arrive
 * as notification webhooks (see {@link AdyenWebhook}, this gateway's
 * `webhook`), so the lists answer nothing and `getCase` null.
 *
 * Represent (the module's document, then its representment):
 * - `putDocument` asks the dispute's applicable defense reasons, chooses one
 *   that card-scan evidence fits by rule (`chooseDefenseReason`: never the
 *   first blindly), and supplies the pack as that reason's document type
 *   (`DefenseMaterial`); a repeat replaces it, as Adyen keeps one per type;
 * - `represent` asks the reasons again and defends with the chosen one.
 *
 * Every call is safe to repeat, so the HTTP core retries them: the reads
 * read, a supply replaces, and Adyen's "already defended / accepted /
 * document not found" answers to a repeat of ours count as done. A business
 * failure (HTTP 200, `success: false`) is a {@link DisputeGatewayRefusal}
 * with Adyen's message; 401/403 a {@link DisputeGatewayConfigurationError}.
 */
export class AdyenDisputeGateway implements DisputeGateway {
  readonly name = ADYEN
  readonly webhook: ProcessorWebhook | undefined

  private readonly http: HttpClient
  private readonly merchantAccount: string
  private readonly maxDocumentBytes: number
  /** A `#private` field: not shown by `util.inspect` or `JSON.stringify` of the gateway. */
  readonly #auth: Record<string, string>

  constructor(options: AdyenDisputeGatewayOptions) {
    this.merchantAccount = options.merchantAccount
    this.#auth = adyenAuthHeaders(options)
    this.maxDocumentBytes = Math.min(options.maxDocumentBytes, ADYEN_MAX_PDF_BYTES)
    this.http = new HttpClient({
      baseUrl: adyenDisputesUrl(options),
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      backoff: options.backoff,
      onRetry: options.onRetry,
    })
    this.webhook = options.hmacKey
      ? new AdyenWebhook({
          merchantAccount: options.merchantAccount,
          // The current key first; earlier ones while notifications signed with them drain.
          hmacKeys: [options.hmacKey, ...(options.previousHmacKeys ?? [])],
          basic: options.webhookUser && options.webhookPassword ? { user: options.webhookUser, password: options.webhookPassword } : undefined,
        })
      : undefined
  }

  /** Adyen publishes no list: its disputes come by webhook. */
  async listCasesByActivityDate(): Promise<DisputeCaseRecord[]> {
    return []
  }

  /** Adyen publishes no list: its disputes come by webhook. */
  async listActionableCases(): Promise<DisputeCaseRecord[]> {
    return []
  }

  /** Adyen has no read of a dispute; its record is what its notifications said (`webhook.caseRecord`). */
  async getCase(caseId: string): Promise<DisputeCaseRecord | null> {
    checkReference(caseId)
    return null
  }

  /** The document types supplied on the dispute (Adyen keeps one document per type), from its defense reasons. */
  async listDocuments(caseId: string): Promise<string[]> {
    const reasons = await this.defenseReasons(caseId)
    const types = reasons.flatMap((reason) => (reason.defenseDocumentTypes ?? []).filter((type) => type.available))
    return [...new Set(types.map((type) => type.defenseDocumentTypeCode))]
  }

  /**
   * `/supplyDefenseDocument`: the file as the document type of the defense
   * reason chosen for card-scan evidence. `documentId` is the module's name
   * for it; Adyen names documents by type only.
   */
  async putDocument(caseId: string, _documentId: string, file: { bytes: Uint8Array; contentType: string }): Promise<void> {
    checkReference(caseId)
    if (!CONTENT_TYPES.has(file.contentType)) {
      throw new TypeError(`Adyen takes application/pdf, image/jpeg or image/tiff defense documents (got ${file.contentType.slice(0, 60)})`)
    }
    if (file.contentType === "application/pdf" && file.bytes.length > this.maxDocumentBytes) {
      throw new DisputeGatewayRefusal(`The document is ${file.bytes.length} bytes; Adyen takes PDFs of at most ${this.maxDocumentBytes}`, {
        gateway: ADYEN,
        code: "document_too_large",
      })
    }
    const choice = this.choose(caseId, await this.defenseReasons(caseId))
    await this.call("/supplyDefenseDocument", {
      disputePspReference: caseId,
      merchantAccountCode: this.merchantAccount,
      defenseDocuments: [
        { content: Buffer.from(file.bytes).toString("base64"), contentType: file.contentType, defenseDocumentTypeCode: choice.documentType },
      ],
    })
  }

  /** `/deleteDisputeDefenseDocument` of a type; a document already gone is done. */
  async deleteDocument(caseId: string, documentId: string): Promise<void> {
    checkReference(caseId)
    // The module names its pack by its own id: that is the evidence document type at Adyen.
    const type = /^[A-Za-z]{1,64}$/.test(documentId) ? documentId : EVIDENCE_DOCUMENT_TYPE
    try {
      await this.call("/deleteDisputeDefenseDocument", {
        disputePspReference: caseId,
        merchantAccountCode: this.merchantAccount,
        defenseDocumentType: type,
      })
    } catch (error) {
      if (!(error instanceof DisputeGatewayRefusal && DOCUMENT_NOT_FOUND.test(error.message))) {
        throw error
      }
    }
  }

  /**
   * `/defendDispute` with the reason chosen by rule, one that names the case's reason family when Adyen
   * offers it (Adyen takes no note or amount); a dispute already defended is done.
   */
  async represent(caseId: string, input: { reasonFamily?: ReasonFamily } = {}): Promise<DisputeUpdateResult> {
    checkReference(caseId)
    let reasons: DefenseReason[]
    try {
      reasons = await this.defenseReasons(caseId)
    } catch (error) {
      // Asked again after a lost acknowledgement: a defended dispute may no longer list reasons.
      if (error instanceof DisputeGatewayRefusal && ALREADY_DEFENDED.test(error.message)) {
        return {}
      }
      throw error
    }
    const choice = this.choose(caseId, reasons, input.reasonFamily)
    try {
      await this.call("/defendDispute", {
        disputePspReference: caseId,
        merchantAccountCode: this.merchantAccount,
        defenseReasonCode: choice.reason,
      })
    } catch (error) {
      if (!(error instanceof DisputeGatewayRefusal && ALREADY_DEFENDED.test(error.message))) {
        throw error
      }
    }
    return {}
  }

  /** `/acceptDispute`; a dispute already accepted is done. */
  async acceptLiability(caseId: string): Promise<DisputeUpdateResult> {
    checkReference(caseId)
    try {
      await this.call("/acceptDispute", { disputePspReference: caseId, merchantAccountCode: this.merchantAccount })
    } catch (error) {
      if (!(error instanceof DisputeGatewayRefusal && ALREADY_ACCEPTED.test(error.message))) {
        throw error
      }
    }
    return {}
  }

  /** `/retrieveApplicableDefenseReasons`. */
  async defenseReasons(caseId: string): Promise<DefenseReason[]> {
    checkReference(caseId)
    const answer = await this.call("/retrieveApplicableDefenseReasons", {
      disputePspReference: caseId,
      merchantAccountCode: this.merchantAccount,
    })
    return answer.defenseReasons ?? []
  }

  private choose(caseId: string, reasons: readonly DefenseReason[], family?: ReasonFamily): { reason: string; documentType: string } {
    const choice = chooseDefenseReason(reasons, family)
    if (!choice) {
      throw new DisputeGatewayRefusal(
        `Adyen offers no defense reason for dispute ${caseId} that card-scan evidence (${EVIDENCE_DOCUMENT_TYPE}) can support (offered: ${
          reasons.map((reason) => reason.defenseReasonCode).join(", ") || "none"
        })`,
        { gateway: ADYEN, code: "no_defense_reason" }
      )
    }
    return choice
  }

  /** One Disputes API call: 200 with `success: true`, or a typed error. */
  private async call(path: string, body: Record<string, unknown>): Promise<DisputeAnswer> {
    let data: unknown
    try {
      ;({ data } = await this.http.request<unknown>({
        method: "POST",
        path,
        body,
        headers: { ...this.#auth, "content-type": "application/json" },
        idempotent: true,
        maxBytes: 1024 * 1024,
      }))
    } catch (error) {
      if (error instanceof HttpAuthError || (error instanceof HttpStatusError && (error.status === 401 || error.status === 403))) {
        const refusal = serviceErrorOf(error.body)
        throw new DisputeGatewayConfigurationError(
          `Adyen refused the Disputes API credentials or merchant account (HTTP ${error.status}${refusal?.errorCode ? `, ${refusal.errorCode}` : ""}): check the API key or ws user, its "API dispute management" role, and merchantAccount`,
          { gateway: ADYEN, status: error.status, cause: error }
        )
      }
      if (error instanceof HttpStatusError && error.status >= 400 && error.status < 500) {
        const refusal = serviceErrorOf(error.body)
        throw new DisputeGatewayRefusal(`Adyen refused ${path.slice(1)}: ${refusal?.message ?? `HTTP ${error.status}`}`, {
          gateway: ADYEN,
          code: refusal?.errorCode ?? String(error.status),
          cause: error,
        })
      }
      throw error
    }
    const parsed = disputeAnswerSchema.safeParse(data)
    if (!parsed.success) {
      throw new DisputeGatewayProtocolError(`Adyen's answer to ${path.slice(1)} is not a Disputes API answer`, { gateway: ADYEN })
    }
    if (!parsed.data.disputeServiceResult.success) {
      throw new DisputeGatewayRefusal(`Adyen refused ${path.slice(1)}: ${parsed.data.disputeServiceResult.errorMessage ?? "no reason given"}`, {
        gateway: ADYEN,
        code: "success_false",
      })
    }
    return parsed.data
  }
}

function checkReference(caseId: string): void {
  if (typeof caseId !== "string" || !DISPUTE_REFERENCE.test(caseId)) {
    throw new TypeError("caseId must be an Adyen dispute pspReference (letters and digits)")
  }
}
