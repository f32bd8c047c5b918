import { z } from "@medusajs/framework/zod"
import { httpUrl, NAME_UNKNOWN_KEYS, requiredString } from "../../lib/option-schema"
import type { GatewayHttpOptions } from "../definition"

/**
 * Worldpay's options, declared once: the provider's `gateway` (cnpAPI) and the
 * disputes module's `disputeGateway` (the Chargeback API) parse them with these
 * schemas, and the gateways' own option types are inferred from them.
 */

/** The `type` a store writes for Worldpay, and the name both gateways report. */
export const WORLDPAY = "worldpay"

// ---- cnpAPI (payments) ----------------------------------------------------------------

/** cnpAPI schema version sent when none is configured. */
export const DEFAULT_CNP_VERSION = "12.30"
/** cnpAPI requires a report group on every transaction; this is the SDKs' default. */
export const DEFAULT_REPORT_GROUP = "Default Report Group"

/** The provider's `gateway` option for Worldpay eCommerce (cnpAPI). */
export const worldpayGatewaySchema = z.strictObject(
  {
    type: z.literal(WORLDPAY),
    /** The cnpAPI online endpoint, e.g. `https://payments.vantivprelive.com/vap/communicator/online`. */
    url: httpUrl("the cnpAPI online endpoint"),
    merchantId: requiredString("the Worldpay merchant id"),
    user: requiredString("the cnpAPI user"),
    /** Secret: sent only inside cnpAPI request bodies; never logged, never part of an error. */
    password: requiredString("the cnpAPI password"),
    /** `reportGroup` of every transaction. Default "Default Report Group". */
    reportGroup: z
      .string()
      .min(1)
      .max(25, { error: "must be at most 25 characters (cnpAPI limit)" })
      .optional(),
    /** cnpAPI version attribute. Default "12.30". */
    version: z
      .string()
      .regex(/^\d{1,2}\.\d{1,2}$/, { error: 'must look like "12.30"' })
      .optional(),
  },
  NAME_UNKNOWN_KEYS
)

/** The built-in Worldpay eCommerce (cnpAPI) gateway, as the provider's `gateway` option. */
export type WorldpayGatewayConfig = z.output<typeof worldpayGatewaySchema>

/** What `WorldpayGateway` is built from: the option, and how it talks HTTP. */
export type WorldpayGatewayOptions = Omit<WorldpayGatewayConfig, "type"> & GatewayHttpOptions

// ---- Chargeback API (disputes) --------------------------------------------------------

/** Worldpay's per-document limit ("Filesize exceeds limit of 2MB"; the SDKs' tests send 2 MB + 1 KB to meet it). */
export const WORLDPAY_MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
/**
 * Largest retrieval answer read: 64 MiB, some 45,000 cases of ~1.5 kB. The
 * API does not page a day's cases, so the cap must hold the busiest day a
 * store can have. Reading is proportional to it: the answer's bytes once,
 * outside the JS heap, plus the records (~1.1 kB of heap a case). 10,000
 * cases (14.8 MB) took 1.5 s of CPU to parse, 11 MB of heap for the records
 * and ~26 MB at most while reading (`npm run bench:dispute-gateway`).
 */
export const DEFAULT_MAX_RETRIEVAL_BYTES = 64 * 1024 * 1024
/** The most a store may raise that cap to (the option's bound): 1 GiB, some 700,000 cases. */
export const MAX_RETRIEVAL_BYTES_LIMIT = 1024 * 1024 * 1024
/** A day's cases take Worldpay longer to gather than one case: the default per-attempt timeout of retrievals is at least this. */
export const MIN_RETRIEVAL_TIMEOUT_MS = 60_000

/** The disputes module's `disputeGateway` option for Worldpay eComm's Chargeback API. */
export const worldpayDisputeGatewaySchema = z.strictObject(
  {
    type: z.literal(WORLDPAY),
    /** The Chargeback API's base URL: `https://services.vantivcnp.com` (production), `https://services.vantivprelive.com` (pre-live). */
    url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
    /** The merchant's cnpAPI user (HTTP Basic). */
    user: z.string().min(1, "must not be empty"),
    /** The merchant's cnpAPI password. Sent only in the Authorization header; never in an error, a log line or a retry event. */
    password: z.string().min(1, "must not be empty"),
    /**
     * When the credentials open several merchants, the one this store is: cases
     * of other merchants are left out of lists and `getCase` answers null for them.
     * A number, as the Chargeback API sends it (`xs:long`); compared by value.
     */
    merchantId: z
      .string()
      .regex(/^\d{1,18}$/, { error: "must be the Worldpay merchant id, a number (the Chargeback API sends it as one)" })
      .optional(),
    /**
     * Largest case list read (a day's cases, or the actionable ones), default 64 MiB: some 45,000
     * cases. Worldpay does not page these lists, so a store with more cases at once raises it.
     */
    maxRetrievalBytes: z.number().int().min(1024 * 1024).max(MAX_RETRIEVAL_BYTES_LIMIT).optional(),
    /** Per-attempt timeout of those reads; default the larger of `timeoutMs` and 60 s. */
    retrievalTimeoutMs: z.number().int().min(1_000).max(600_000).optional(),
  },
  // Refused by name: dropped silently, a misspelt maxRetrievalBytes would look set and do nothing.
  NAME_UNKNOWN_KEYS
)

/** The built-in Worldpay Chargeback API gateway, as the module's `disputeGateway` option (parsed). */
export type WorldpayDisputeGatewayConfig = z.output<typeof worldpayDisputeGatewaySchema>

/**
 * What `WorldpayDisputeGateway` is built from: the option, and how it talks
 * HTTP (per-attempt timeout default 10 s, retrievals at least 60 s; 2 retries
 * of the requests that are safe to repeat).
 */
export type WorldpayDisputeGatewayOptions = Omit<WorldpayDisputeGatewayConfig, "type"> &
  GatewayHttpOptions & {
    /** Largest document `putDocument` sends; larger ones are refused (code "012") before sending. Default 2 MiB, Worldpay's limit. */
    maxDocumentBytes?: number
  }
