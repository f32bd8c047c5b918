import { z } from "@medusajs/framework/zod"
import { insecureUrlProblem } from "../../lib/secure-url"
import { keyringOptionSchema, KeyringOption, MIN_SECRET_CHARS } from "../../lib/keyring"
import { httpUrl, requiredString } from "../../lib/option-schema"
import { PaymentGatewayConfig, paymentGatewayOption, paymentGatewayUrls } from "../../processors"
import type { ProcessorGateway } from "../../processors/types"
import { invalidOptionsError } from "./errors"
import { velocityOptionSchema } from "./velocity-options"

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
 *
 * Declared once, as the zod schema below: {@link ServiceScanOptions} is its
 * input and {@link ResolvedServiceScanOptions} its output (defaults applied).
 */

/** Default of `savedCards.sessionLifetimeMs`: 30 minutes. */
export const DEFAULT_SAVED_CARD_SESSION_LIFETIME_MS = 30 * 60 * 1000

/**
 * `schema` typed as the `Input` a store owner writes. The gateway and keyring
 * options are dispatched by hand (so that an error names the branch the owner
 * meant), which zod can only type as `unknown`; their issues pass through as
 * they are.
 */
function writtenAs<Input>() {
  return <Output>(schema: z.ZodType<Output>) =>
    z.custom<Input>().transform((value, ctx): Output => {
      const result = schema.safeParse(value)
      if (result.success) {
        return result.data
      }
      for (const issue of result.error.issues) {
        ctx.issues.push({ code: "custom", message: issue.message, path: issue.path, input: value })
      }
      return z.NEVER
    })
}

/** Options of the browser form client that the merchant may set. */
const formConfigSchema = z.strictObject(
  {
    /** Passed to the processor's token registration (cnpAPI `reportGroup`). */
    reportGroup: z.string().min(1, { error: "must not be empty" }).optional(),
    /** Form UI version. Default 2, as the service recommends. */
    uiVersion: z.number().int().positive().default(2),
    /** Default false, as the service recommends. */
    showExplanation: z.boolean().default(false),
    /** Default false, as the service recommends. */
    showResult: z.boolean().default(false),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `has unsupported keys: ${issue.keys.join(", ")} (supported: reportGroup, uiVersion, showExplanation, showResult)`
        : undefined,
  }
)

/** Options of saved cards. */
const savedCardsSchema = z
  .strictObject(
    {
      /**
       * Seals the tokens customers save. A server-side secret of at least 32
       * characters (e.g. `openssl rand -base64 48`), or, to rotate it, a keyring
       * `[{ id, secret }, ...]`, newest first: the first seals, the others still
       * open cards saved under them until the re-seal command moves those to the
       * first (README: Rotating keys). Never sent anywhere.
       */
      secret: writtenAs<KeyringOption>()(keyringOptionSchema("the saved cards secret")),
      /**
       * Keys the cards' fingerprints (and their ids), which link a card's payments
       * over time. Default: `secret` when it is a single string; required when it
       * is a list (set it to the secret the cards were saved under, and keep it).
       * At least 32 characters. It opens nothing.
       */
      fingerprintSecret: z
        .string({ error: "must be a string (the saved cards fingerprint secret)" })
        .min(MIN_SECRET_CHARS, { error: `must be at least ${MIN_SECRET_CHARS} characters (the saved cards fingerprint secret)` })
        .optional(),
      /**
       * How long a payment session that names a saved card may pay, from the moment
       * the card was chosen, in ms. Default 1800000 (30 minutes); 60000 to 86400000.
       * After it the shopper chooses the card again.
       */
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

/** The provider's options: see {@link ServiceScanOptions}. */
export const serviceScanOptionsSchema = z.object({
  /** The service's checkout host; the token exchange is `GET {checkoutUrl}/api/v1/<processor>/form/<form_id>`. */
  checkoutUrl: httpUrl("the service's checkout host"),
  /** Where the storefront loads the hosted form's client script from. */
  clientScriptUrl: httpUrl("the hosted form's client script"),
  /** The shareable API key, handed to the browser's form client. Public by design. */
  shareableKey: requiredString("the shareable API key"),
  /** The payment-token API key (`X-API-KEY` of the exchange). Secret: stays on the server. */
  paymentTokenApiKey: requiredString("the payment-token API key"),
  /** The exchange path's processor segment. Default "worldpay". */
  processor: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/i, { error: "must be a path segment such as \"worldpay\"" })
    .default("worldpay"),
  /**
   * "manual" (default): authorize at checkout, capture from the admin.
   * "automatic": charge at checkout (cnpAPI `sale`).
   */
  capture: z
    .enum(["manual", "automatic"], { error: 'must be "manual" or "automatic"' })
    .default("manual"),
  /** Options of the browser form client. */
  formConfig: formConfigSchema.default({ uiVersion: 2, showExplanation: false, showResult: false }),
  /** Per-attempt timeout of every call to the service and the processor, in ms. Default 10000. */
  timeoutMs: z
    .number({ error: "must be a number of milliseconds" })
    .int()
    .min(100, { error: "must be at least 100 ms" })
    .max(120_000, { error: "must be at most 120000 ms" })
    .default(10_000),
  /** Extra attempts after a timeout, connection failure, 429 or 5xx. Default 2. */
  maxRetries: z
    .number({ error: "must be a whole number" })
    .int()
    .min(0, { error: "must be 0 or more" })
    .max(5, { error: "must be at most 5" })
    .default(2),
  /** The processor gateway: a built-in processor's options, by `type` (Worldpay cnpAPI: `WorldpayGatewayConfig`), or your own implementation. */
  gateway: writtenAs<PaymentGatewayConfig | ProcessorGateway>()(paymentGatewayOption()),
  /**
   * Saved cards (off without it). `secret`, at least 32 characters, seals the
   * processor tokens customers save and keys their fingerprints. Keep it
   * stable: cards saved under another secret can no longer be used.
   */
  savedCards: savedCardsSchema.optional(),
  /**
   * Limits on failed completions against card testing (per client address,
   * cart, customer and card); see velocity-options.ts. Default: on, with
   * VELOCITY_DEFAULTS; `false` turns them off.
   */
  velocity: velocityOptionSchema,
  /**
   * Development only, never in production: accept http service URLs on any
   * host. Without it every URL is https, or http to localhost, 127.0.0.0/8 or ::1.
   */
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
    for (const [key, url] of Object.entries(paymentGatewayUrls(options.gateway))) {
      urls.push([["gateway", key], url])
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
    throw invalidOptionsError(problems)
  }
  return result.data
}

/** The provider's options, as a store owner writes them (see the example above {@link DEFAULT_SAVED_CARD_SESSION_LIFETIME_MS}). */
export type ServiceScanOptions = z.input<typeof serviceScanOptionsSchema>

/** Options after validation, with defaults applied. */
export type ResolvedServiceScanOptions = z.output<typeof serviceScanOptionsSchema>

/** Options of saved cards, as written. */
export type SavedCardsOptions = z.input<typeof savedCardsSchema>

/** Options of the browser form client that the merchant may set, as written. */
export type ServiceScanFormConfigOptions = z.input<typeof formConfigSchema>
