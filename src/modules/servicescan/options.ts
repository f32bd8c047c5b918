import { z } from "@medusajs/framework/zod"
import { MedusaError } from "@medusajs/framework/utils"
import { insecureUrlProblem } from "../../lib/secure-url"
import { keyringOptionSchema, KeyringOption } from "../../lib/keyring"
import { disputeGatewaysOption, DisputeGatewayInput, disputeGatewayUrls } from "../../processors"
import type { DisputeGateway } from "../../processors/types"
import { AUTO_RESPOND_POLICIES } from "./types"

const HOUR_MS = 60 * 60 * 1000

/**
 * Options of the ServiceScan disputes module (`medusa-config.ts`):
 *
 * ```ts
 * { resolve: "medusa-plugin-servicescan/modules/servicescan", options: { baseUrl, secretKey, webhookSecret } }
 * ```
 *
 * Keys are optional so that a store can boot without them (a dev machine, a
 * staging copy): `GET /admin/servicescan/health` reports which are missing and
 * the poll job surfaces a configuration error instead of calling the service.
 */
export const ServiceScanModuleOptionsSchema = z
  .object({
    /** `{base_url}` of the disputes API. */
    baseUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
    /** The secret key for `X-API-KEY`. */
    secretKey: z.string().trim().min(1, "must not be empty").optional(),
    /** Shared secret of the chargeback webhook's HMAC-SHA256 signature. */
    webhookSecret: z.string().min(16, "must be at least 16 characters").optional(),
    /** How long a pending proof request waits between status checks. The spec recommends "a few hours". */
    pollIntervalMs: z.number().int().min(1_000).default(3 * HOUR_MS),
    /** Copy valid scans' images into Medusa's File Module when a proof request completes. */
    archiveImages: z.boolean().default(true),
    /**
     * The key-encrypting key of card evidence at rest (archived scan images,
     * evidence packs): a secret of at least 32 characters, or a keyring
     * `[{ id, secret }, ...]`, newest first (README: Evidence at rest).
     * Without it nothing is archived and no pack is stored.
     */
    evidenceKey: keyringOptionSchema("the evidence key-encrypting key").optional(),
    /** Per-attempt timeout of every call to the service. */
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** Extra attempts of idempotent calls (status checks, images). Creating a proof request is never retried. */
    maxRetries: z.number().int().min(0).max(10).default(2),
    /** Calls to the service in flight at once during a poll run. */
    concurrency: z.number().int().min(1).max(64).default(8),
    /** Proof requests a poll run claims at a time (one workflow run per page). */
    pageSize: z.number().int().min(1).max(2_000).default(250),
    /**
     * How long a proof request whose PUT got no answer waits before it is sent
     * again by itself. The service has no idempotency key, so it may then hold
     * two proof requests for the same scans: harmless, while a lost one loses
     * the dispute. An admin can resend sooner.
     */
    resubmitUnconfirmedAfterMs: z.number().int().min(60_000).default(HOUR_MS),
    /** First delay after a failed call; doubles per attempt, with full jitter, up to `pollIntervalMs`. */
    retryBaseDelayMs: z.number().int().min(0).default(5 * 60 * 1000),
    /**
     * How long after a cart completion attempt the reconciliation job settles
     * it: a session that never got a payment by then is removed, and the
     * provider releases any authorization the processor holds for it (one
     * whose answer was lost). Longer than any storefront keeps retrying.
     */
    checkoutReconcileAfterMs: z.number().int().min(60_000).default(HOUR_MS),
    /**
     * The processor's chargeback API: `{ type: "worldpay", url, user, password }`
     * (Worldpay eComm Chargeback API), `{ type: "adyen", … }` (Adyen's Disputes
     * API and notification webhook), or your own object implementing
     * `DisputeGateway`; or a list of them, one per processor. Each case is
     * answered through the gateway it came from. Without it, cases are not
     * imported and answers are not sent.
     */
    disputeGateway: disputeGatewaysOption(),
    /**
     * Answering cases without a person, once a chargeback's evidence is complete:
     * `off` (an admin decides), `represent-valid` (send the evidence when a scan is
     * valid), `represent-valid-accept-invalid` (also accept liability when every
     * scan is likely true fraud). Never after the reply-by day, never twice.
     */
    autoRespond: z.enum(AUTO_RESPOND_POLICIES).default("off"),
    /** The processor's per-document limit; the evidence pack is made to fit it (Worldpay: 2 MB). */
    maxDocumentBytes: z.number().int().min(100_000).max(64 * 1024 * 1024).default(2 * 1024 * 1024),
    /** Days the case import reads again behind its cursor, so nothing is missed at a day boundary or after an outage. */
    caseImportOverlapDays: z.number().int().min(1).max(31).default(2),
    /** Days the first import reaches back. */
    caseImportLookbackDays: z.number().int().min(1).max(365).default(30),
    /**
     * Alerts through Medusa's Notification Module (docs/disputes.md: Alerts):
     * the `feed` channel (the admin's bell) unless `feed: false`, and the
     * `email` channel with the store's own template when `emailTemplate` names
     * one (then `emailTo` lists who gets it). `dueSoonDays`: how many days
     * before its reply-by day a case still waiting for our answer is announced.
     */
    alerts: z
      .object({
        dueSoonDays: z.number().int().min(1).max(60).default(5),
        feed: z.boolean().default(true),
        emailTemplate: z.string().trim().min(1, "must not be empty").optional(),
        emailTo: z.array(z.email({ error: "must be an email address" })).min(1, "must list at least one address").optional(),
      })
      .refine((alerts) => !alerts.emailTemplate || alerts.emailTo, {
        path: ["emailTo"],
        error: "is required with emailTemplate: who gets the email",
      })
      .default({ dueSoonDays: 5, feed: true }),
    /**
     * Checkout signals (docs/privacy.md): with each completed ServiceScan payment, the shopper's
     * IP address, user agent, the widget's device id and the customer id are kept as evidence for a
     * fraud dispute (Visa Compelling Evidence 3.0), for `retentionDays` days (default 400), then
     * deleted by a daily job. Below 365 days no prior transaction can reach CE 3.0's window (120 to
     * 365 days before the dispute), so no case qualifies. `enabled: false` records nothing (the
     * widget still sends its device id with the form; it is then only in Medusa's payment session).
     */
    checkoutSignals: z
      .object({
        enabled: z.boolean({ error: "must be true or false" }).default(true),
        retentionDays: z
          .number({ error: "must be a whole number of days" })
          .int({ error: "must be a whole number of days" })
          .min(1, { error: "must be at least 1 day" })
          .max(3_650, { error: "must be at most 3650 days (10 years)" })
          .default(400),
      })
      .prefault({}),
    /** Replay window of webhook signatures. */
    webhookToleranceSeconds: z.number().int().min(1).max(3_600).default(300),
    /**
     * The card networks' monitoring lines the admin's dispute analytics draws the monthly
     * chargeback ratio against, in percent (to two decimals): Visa's acquirer monitoring
     * from 0.9 % (US), Mastercard's Excessive Chargeback Program from 1.5 % and at least
     * 100 chargebacks in the month. Set them to what your acquirer tells you.
     */
    monitoring: z
      .object({
        visaRatioPercent: z.number().gt(0).max(100).default(0.9),
        mastercardRatioPercent: z.number().gt(0).max(100).default(1.5),
        mastercardMinChargebacks: z.number().int().min(0).default(100),
      })
      .prefault({}),
    /**
     * Development only, never in production: accept http service URLs on any host. Without it
     * `baseUrl` and `disputeGateway.url` are https, or http to localhost, 127.0.0.0/8 or ::1.
     */
    allowInsecureUrls: z.boolean({ error: "must be true or false (http service URLs, for development only)" }).default(false),
  })
  // Not strict: Medusa adds its own keys (e.g. `database`) to module options.
  // The secret key and the processor's password travel on these URLs: https, unless loopback or the development flag.
  .superRefine((options, ctx) => {
    if (options.allowInsecureUrls) {
      return
    }
    const urls: [string[], string][] = [[["baseUrl"], options.baseUrl]]
    const gateways = options.disputeGateway ?? []
    gateways.forEach((gateway, index) => {
      for (const [key, url] of Object.entries(disputeGatewayUrls(gateway))) {
        // One gateway is named as written (`disputeGateway.url`), one of a list by its place.
        urls.push([gateways.length > 1 ? ["disputeGateway", String(index), key] : ["disputeGateway", key], url])
      }
    })
    for (const [path, url] of urls) {
      const problem = insecureUrlProblem(url)
      if (problem) {
        ctx.addIssue({ code: "custom", path, message: problem })
      }
    }
  })

/** What a store writes. `disputeGateway` and `evidenceKey` are typed by hand: their schemas take `unknown` in, to name the entry at fault. */
export type ServiceScanModuleOptions = Omit<z.input<typeof ServiceScanModuleOptionsSchema>, "disputeGateway" | "evidenceKey"> & {
  disputeGateway?: DisputeGatewayInput | DisputeGateway | Array<DisputeGatewayInput | DisputeGateway>
  evidenceKey?: KeyringOption
}
export type ResolvedServiceScanModuleOptions = z.output<typeof ServiceScanModuleOptionsSchema>

/** Validates the options once, at boot, with a message that names the field. */
export function resolveModuleOptions(options: unknown): ResolvedServiceScanModuleOptions {
  const parsed = ServiceScanModuleOptionsSchema.safeParse(options ?? {})
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length ? issue.path.join(".") : "options"}: ${issue.message}`)
      .join("; ")
    throw new MedusaError(
      MedusaError.Types.INVALID_ARGUMENT,
      `Invalid options for the servicescan module: ${problems}`
    )
  }
  return parsed.data
}

/**
 * Where the module's loader (loaders/validate-options.ts) registers the
 * resolved options in the module's container, for the services the module
 * loader builds there: parsed once, read by every service of the module.
 */
export const RESOLVED_OPTIONS = "servicescanOptions" as const

/** The resolved options, as the services of the module take them from its container. */
export type WithResolvedOptions = { [RESOLVED_OPTIONS]: ResolvedServiceScanModuleOptions }
