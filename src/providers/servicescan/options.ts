import { MedusaError } from "@medusajs/framework/utils"
import { z } from "@medusajs/framework/zod"
import { gatewayOption, NAME_UNKNOWN_KEYS } from "../../lib/gateway-option"
import { insecureUrlProblem } from "../../lib/secure-url"
import { keyringOptionSchema, KeyringOption, MIN_SECRET_CHARS } from "../../lib/keyring"
import { isProcessorGateway, missingGatewayMethods, ProcessorGateway } from "./gateways/types"
import { ResolvedVelocityOptions, ServiceScanVelocityOptions, velocityOptionSchema } from "./velocity-options"

/**
 * The provider's options, as a store owner writes them in medusa-config.ts:
 *
 * ```ts
 * {
 *   resolve: "medusa-plugin-servicescan/providers/servicescan",
 *   id: "servicescan",
 *   options: {
 *     checkoutUrl: process.env.SERVICESCAN_CHECKOUT_URL,
 *     clientScriptUrl: process.env.SERVICESCAN_CLIENT_SCRIPT_URL,
 *     shareableKey: process.env.SERVICESCAN_SHAREABLE_KEY,
 *     paymentTokenApiKey: process.env.SERVICESCAN_PAYMENT_TOKEN_API_KEY,
 *     capture: "manual",
 *     gateway: {
 *       type: "worldpay",
 *       url: process.env.WORLDPAY_URL,
 *       merchantId: process.env.WORLDPAY_MERCHANT_ID,
 *       user: process.env.WORLDPAY_USER,
 *       password: process.env.WORLDPAY_PASSWORD,
 *     },
 *   },
 * }
 * ```
 */
export type ServiceScanOptions = {
  /** The service's checkout host; the token exchange is `GET {checkoutUrl}/api/v1/<processor>/form/<form_id>`. */
  checkoutUrl: string
  /** Where the storefront loads the hosted form's client script from. */
  clientScriptUrl: string
  /** The shareable API key, handed to the browser's form client. Public by design. */
  shareableKey: string
  /** The payment-token API key (`X-API-KEY` of the exchange). Secret: stays on the server. */
  paymentTokenApiKey: string
  /** The exchange path's processor segment. Default "worldpay". */
  processor?: string
  /**
   * "manual" (default): authorize at checkout, capture from the admin.
   * "automatic": charge at checkout (cnpAPI `sale`).
   */
  capture?: "manual" | "automatic"
  /** Options of the browser form client. */
  formConfig?: ServiceScanFormConfigOptions
  /** Per-attempt timeout of every call to the service and the processor, in ms. Default 10000. */
  timeoutMs?: number
  /** Extra attempts after a timeout, connection failure, 429 or 5xx. Default 2. */
  maxRetries?: number
  /** The processor gateway: the built-in Worldpay cnpAPI gateway, or your own implementation. */
  gateway: WorldpayGatewayConfig | ProcessorGateway
  /**
   * Saved cards (off without it). `secret`, at least 32 characters, seals the
   * processor tokens customers save and keys their fingerprints. Keep it
   * stable: cards saved under another secret can no longer be used.
   */
  savedCards?: SavedCardsOptions
  /**
   * Limits on failed completions against card testing (per client address,
   * cart, customer and card); see velocity-options.ts. Default: on, with
   * VELOCITY_DEFAULTS; `false` turns them off.
   */
  velocity?: ServiceScanVelocityOptions | false
  /**
   * Development only, never in production: accept http service URLs on any
   * host. Without it every URL is https, or http to localhost, 127.0.0.0/8 or ::1.
   */
  allowInsecureUrls?: boolean
}

/** Options of saved cards. */
export type SavedCardsOptions = {
  /**
   * Seals the tokens customers save. A server-side secret of at least 32
   * characters (e.g. `openssl rand -base64 48`), or, to rotate it, a keyring
   * `[{ id, secret }, ...]`, newest first: the first seals, the others still
   * open cards saved under them until the re-seal command moves those to the
   * first (README: Rotating keys). Never sent anywhere.
   */
  secret: KeyringOption
  /**
   * Keys the cards' fingerprints (and their ids), which link a card's payments
   * over time. Default: `secret` when it is a single string; required when it
   * is a list (set it to the secret the cards were saved under, and keep it).
   * At least 32 characters. It opens nothing.
   */
  fingerprintSecret?: string
  /**
   * How long a payment session that names a saved card may pay, from the moment
   * the card was chosen, in ms. Default 1800000 (30 minutes); 60000 to 86400000.
   * After it the shopper chooses the card again.
   */
  sessionLifetimeMs?: number
}

/** Default of `savedCards.sessionLifetimeMs`: 30 minutes. */
export const DEFAULT_SAVED_CARD_SESSION_LIFETIME_MS = 30 * 60 * 1000

/** Options of the browser form client that the merchant may set. */
export type ServiceScanFormConfigOptions = {
  /** Passed to the processor's token registration (cnpAPI `reportGroup`). */
  reportGroup?: string
  /** Form UI version. Default 2, as the service recommends. */
  uiVersion?: number
  /** Default false, as the service recommends. */
  showExplanation?: boolean
  /** Default false, as the service recommends. */
  showResult?: boolean
}

/** The built-in Worldpay eCommerce (cnpAPI) gateway. */
export type WorldpayGatewayConfig = {
  type: "worldpay"
  /** The cnpAPI online endpoint, e.g. `https://payments.vantivprelive.com/vap/communicator/online`. */
  url: string
  merchantId: string
  user: string
  /** Secret: sent only inside cnpAPI request bodies. */
  password: string
  /** `reportGroup` of every transaction. Default "Default Report Group". */
  reportGroup?: string
  /** cnpAPI version attribute. Default "12.30". */
  version?: string
}

/** Options after validation, with defaults applied. */
export type ResolvedServiceScanOptions = Omit<
  Required<ServiceScanOptions>,
  "formConfig" | "savedCards" | "velocity"
> & {
  velocity: ResolvedVelocityOptions
  savedCards?: Required<SavedCardsOptions>
  formConfig: Required<Omit<ServiceScanFormConfigOptions, "reportGroup">> &
    Pick<ServiceScanFormConfigOptions, "reportGroup">
}

const requiredString = (description: string) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? `is required (${description})` : `must be a string (${description})`,
    })
    .trim()
    .min(1, { error: `must not be empty (${description})` })

const httpUrl = (description: string) =>
  z.url({
    protocol: /^https?$/,
    error: (issue) =>
      issue.input === undefined
        ? `is required (${description})`
        : `must be an http(s) URL (${description})`,
  })

const worldpayGatewaySchema = z.strictObject(
  {
    type: z.literal("worldpay"),
    url: httpUrl("the cnpAPI online endpoint"),
    merchantId: requiredString("the Worldpay merchant id"),
    user: requiredString("the cnpAPI user"),
    password: requiredString("the cnpAPI password"),
    reportGroup: z
      .string()
      .min(1)
      .max(25, { error: "must be at most 25 characters (cnpAPI limit)" })
      .optional(),
    version: z
      .string()
      .regex(/^\d{1,2}\.\d{1,2}$/, { error: 'must look like "12.30"' })
      .optional(),
  },
  NAME_UNKNOWN_KEYS
)

/** Either a Worldpay configuration (`type: "worldpay"`) or an object implementing ProcessorGateway. */
const gatewaySchema = gatewayOption<WorldpayGatewayConfig, ProcessorGateway>({
  type: "worldpay",
  config: worldpayGatewaySchema,
  isCustom: isProcessorGateway,
  mismatch: (value) => {
    const missing = missingGatewayMethods(value)
    return typeof value === "object" && value !== null && missing.length < 5
      ? `does not implement ProcessorGateway: ${missing.length > 0 ? `missing ${missing.join(", ")}` : "missing a string name"}`
      : 'must be { type: "worldpay", url, merchantId, user, password } or an object implementing ProcessorGateway (name, authorize, sale, capture, refund, cancel)'
  },
})

export const serviceScanOptionsSchema = z.object({
  checkoutUrl: httpUrl("the service's checkout host"),
  clientScriptUrl: httpUrl("the hosted form's client script"),
  shareableKey: requiredString("the shareable API key"),
  paymentTokenApiKey: requiredString("the payment-token API key"),
  processor: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/i, { error: "must be a path segment such as \"worldpay\"" })
    .default("worldpay"),
  capture: z
    .enum(["manual", "automatic"], { error: 'must be "manual" or "automatic"' })
    .default("manual"),
  formConfig: z
    .strictObject(
      {
        reportGroup: z.string().min(1, { error: "must not be empty" }).optional(),
        uiVersion: z.number().int().positive().default(2),
        showExplanation: z.boolean().default(false),
        showResult: z.boolean().default(false),
      },
      {
        error: (issue) =>
          issue.code === "unrecognized_keys"
            ? `has unsupported keys: ${issue.keys.join(", ")} (supported: reportGroup, uiVersion, showExplanation, showResult)`
            : undefined,
      }
    )
    .default({ uiVersion: 2, showExplanation: false, showResult: false }),
  timeoutMs: z
    .number({ error: "must be a number of milliseconds" })
    .int()
    .min(100, { error: "must be at least 100 ms" })
    .max(120_000, { error: "must be at most 120000 ms" })
    .default(10_000),
  maxRetries: z
    .number({ error: "must be a whole number" })
    .int()
    .min(0, { error: "must be 0 or more" })
    .max(5, { error: "must be at most 5" })
    .default(2),
  gateway: gatewaySchema,
  savedCards: z
    .strictObject(
      {
        secret: keyringOptionSchema("the saved cards secret"),
        fingerprintSecret: z
          .string({ error: "must be a string (the saved cards fingerprint secret)" })
          .min(MIN_SECRET_CHARS, { error: `must be at least ${MIN_SECRET_CHARS} characters (the saved cards fingerprint secret)` })
          .optional(),
        sessionLifetimeMs: z
          .number({ error: "must be a number of milliseconds (how long a saved-card session may pay)" })
          .int({ error: "must be a whole number of milliseconds" })
          .min(60_000, { error: "must be at least 60000 ms (one minute)" })
          .max(86_400_000, { error: "must be at most 86400000 ms (one day)" })
          .default(DEFAULT_SAVED_CARD_SESSION_LIFETIME_MS),
      },
      {
        error: (issue) =>
          issue.code === "unrecognized_keys"
            ? `has unsupported keys: ${issue.keys.join(", ")} (supported: secret, fingerprintSecret, sessionLifetimeMs)`
            : issue.code === "invalid_type"
              ? "must be { secret } (saved cards)"
              : undefined,
      }
    )
    .transform((savedCards, ctx) => {
      const fingerprintSecret = savedCards.fingerprintSecret ?? (typeof savedCards.secret === "string" ? savedCards.secret : undefined)
      if (fingerprintSecret === undefined) {
        ctx.issues.push({
          code: "custom",
          path: ["fingerprintSecret"],
          message:
            "is required when secret is a list of keys (fingerprints link a card's payments across rotations: set it to the secret the cards were saved under)",
          input: undefined,
        })
        return z.NEVER
      }
      return { ...savedCards, fingerprintSecret }
    })
    .optional(),
  velocity: velocityOptionSchema,
  allowInsecureUrls: z.boolean({ error: "must be true or false (http service URLs, for development only)" }).default(false),
})
  // Keys, card tokens and the cnpAPI password travel on these URLs: https, unless loopback or the development flag.
  .superRefine((options, ctx) => {
    if (options.allowInsecureUrls) {
      return
    }
    const urls: [string[], string][] = [
      [["checkoutUrl"], options.checkoutUrl],
      [["clientScriptUrl"], options.clientScriptUrl],
    ]
    if (!isProcessorGateway(options.gateway)) {
      urls.push([["gateway", "url"], options.gateway.url])
    }
    for (const [path, url] of urls) {
      const problem = insecureUrlProblem(url)
      if (problem) {
        ctx.addIssue({ code: "custom", path, message: problem })
      }
    }
  })

/**
 * Validates the provider options and applies defaults.
 *
 * @throws MedusaError INVALID_DATA whose message names every invalid field,
 * e.g. `gateway.password: is required (the cnpAPI password)`. Messages never
 * echo option values: some are secrets.
 */
export function parseServiceScanOptions(input: unknown): ResolvedServiceScanOptions {
  const result = serviceScanOptionsSchema.safeParse(input ?? {})
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const path = issue.path.map(String).join(".")
      return path ? `${path}: ${issue.message}` : issue.message
    })
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `Invalid options for the ServiceScan payment provider (servicescan): ${problems.join("; ")}`
    )
  }
  return result.data
}
