import { z } from "@medusajs/framework/zod"
import { httpUrl, NAME_UNKNOWN_KEYS, requiredString } from "../../lib/option-schema"
import type { GatewayHttpOptions } from "../definition"
import { HMAC_KEY } from "./notifications"

/**
 * Adyen's options, declared once: the provider's `gateway` (Checkout API) and
 * the disputes module's `disputeGateway` (Disputes API and the notification
 * webhook) both parse them with {@link adyenOptionsSchema}, so a store writes
 * the same object in both places:
 *
 * ```ts
 * {
 *   type: "adyen",
 *   merchantAccount: "YourCompanyECOM",
 *   apiKey: process.env.ADYEN_API_KEY,          // or user + password (the ws@Company.… credential)
 *   environment: "live",
 *   liveEndpointUrlPrefix: "1797a841fbb37ca7-AdyenDemo",
 *   hmacKey: process.env.ADYEN_HMAC_KEY,        // the webhook's, hex
 *   previousHmacKeys: [],                       // after a rotation: the old key, until its queue drains
 * }
 * ```
 */

/** The `type` a store writes for Adyen, and the name both gateways report. */
export const ADYEN = "adyen"

/** Checkout API v71, test (CheckoutService-v71.json `servers`). */
export const ADYEN_CHECKOUT_TEST_URL = "https://checkout-test.adyen.com/v71"
/** Disputes API v30, test (DisputeService-v30.json `servers`). */
export const ADYEN_DISPUTES_TEST_URL = "https://ca-test.adyen.com/ca/services/DisputeService/v30"
/** Disputes API v30, live: no prefix (Adyen's library turns `-test` into `-live`). */
export const ADYEN_DISPUTES_LIVE_URL = "https://ca-live.adyen.com/ca/services/DisputeService/v30"

/**
 * Where a stored-card payment would send the shopper back to. Adyen's schema
 * requires `returnUrl` on every `/payments`, even for a card on file that
 * never redirects, so one is always sent; `.invalid` (RFC 2606) says plainly
 * that nobody is meant to land there. A store may set its own.
 */
export const DEFAULT_ADYEN_RETURN_URL = "https://servicescan.invalid/adyen/return"

/** The live Checkout URL for a Customer Area prefix (note the extra `/checkout/` segment live). */
export function liveCheckoutUrl(prefix: string): string {
  return `https://${prefix}-checkout-live.adyenpayments.com/checkout/v71`
}

const optionalSecret = (description: string) =>
  z
    .string({ error: `must be a string (${description})` })
    .min(1, { error: `must not be empty (${description})` })
    .optional()

/** A hex HMAC key: 16 to 64 bytes, the one rule the webhook checks signatures with (notifications.ts). */
const hmacKeyOption = (description: string) =>
  z
    .string({ error: `must be a string (${description}, hex)` })
    .regex(HMAC_KEY, { error: `must be ${description} in hex, 32 to 128 digits, as the Customer Area shows it` })

/**
 * The one schema of Adyen's options. Credentials: an API key (`X-API-Key`), or
 * the API credential's username and password (HTTP Basic); endpoints: the
 * environment (live needs the Customer Area's URL prefix), or explicit URLs
 * (the sandbox). A misspelt key is refused by name.
 */
export const adyenOptionsSchema = z
  .strictObject(
    {
      type: z.literal(ADYEN),
      /** The merchant account payments are made on, e.g. `YourCompanyECOM`. */
      merchantAccount: requiredString("the Adyen merchant account"),
      /** The API credential's key, sent as `X-API-Key`. Secret. */
      apiKey: optionalSecret("the Adyen API key"),
      /** The API credential's username, `ws@Company.<company>`, for HTTP Basic instead of an API key. */
      user: optionalSecret("the Adyen API credential's username, ws@Company.…"),
      /** That credential's password. Secret. */
      password: optionalSecret("the Adyen API credential's password"),
      /** "test" (default) or "live": which of Adyen's endpoints, unless `checkoutUrl` / `disputesUrl` say otherwise. */
      environment: z.enum(["test", "live"], { error: 'must be "test" or "live"' }).default("test"),
      /** Live only: Customer Area > Developers > API URLs > Prefix. */
      liveEndpointUrlPrefix: z
        .string({ error: "must be a string (Customer Area > Developers > API URLs > Prefix)" })
        .regex(/^[A-Za-z0-9-]+$/, { error: "must be the prefix alone, e.g. 1797a841fbb37ca7-AdyenDemo" })
        .optional(),
      /** The Checkout API's base URL with its version, e.g. the sandbox's `<url>/v71`; overrides `environment`. */
      checkoutUrl: httpUrl("the Adyen Checkout API base URL, ending in /v71").optional(),
      /** The Disputes API's base URL with its version, e.g. the sandbox's `<url>/ca/services/DisputeService/v30`. */
      disputesUrl: httpUrl("the Adyen Disputes API base URL, ending in /v30").optional(),
      /** The notification webhook's HMAC key, hex, as the Customer Area shows it. Secret. */
      hmacKey: hmacKeyOption("the webhook's HMAC key").optional(),
      /**
       * Earlier HMAC keys, still accepted while notifications Adyen queued
       * under them drain after a key rotation; remove them once they have. Secret.
       */
      previousHmacKeys: z
        .array(hmacKeyOption("an earlier HMAC key of the webhook"), { error: "must be a list of the webhook's earlier HMAC keys, hex" })
        .optional(),
      /** Basic credentials Adyen sends with each notification, when set on the webhook in the Customer Area. */
      webhookUser: optionalSecret("the webhook's Basic username"),
      /** Secret. */
      webhookPassword: optionalSecret("the webhook's Basic password"),
      /** `returnUrl` of every `/payments` (required by Adyen, never used by a card on file). Default {@link DEFAULT_ADYEN_RETURN_URL}. */
      returnUrl: httpUrl("where Adyen would send a redirected shopper back to").optional(),
    },
    NAME_UNKNOWN_KEYS
  )
  .superRefine((options, ctx) => {
    if (!options.apiKey && !(options.user && options.password)) {
      const missing = options.user ? "password" : options.password ? "user" : "apiKey"
      ctx.addIssue({
        code: "custom",
        path: [missing],
        message: "is required: set apiKey (X-API-Key), or user and password (the API credential's Basic login)",
      })
    }
    if (options.environment === "live" && !options.liveEndpointUrlPrefix && !options.checkoutUrl) {
      ctx.addIssue({
        code: "custom",
        path: ["liveEndpointUrlPrefix"],
        message: 'is required with environment "live" (Customer Area > Developers > API URLs > Prefix)',
      })
    }
    if (options.previousHmacKeys?.length && !options.hmacKey) {
      ctx.addIssue({ code: "custom", path: ["hmacKey"], message: "is required with previousHmacKeys: they are accepted beside the current key" })
    }
    if (!options.webhookUser !== !options.webhookPassword) {
      ctx.addIssue({
        code: "custom",
        path: [options.webhookUser ? "webhookPassword" : "webhookUser"],
        message: "is required with the other: the webhook's Basic credentials come as a pair",
      })
    }
  })

/** Adyen's options, as parsed (the provider's `gateway` and the module's `disputeGateway`). */
export type AdyenConfig = z.output<typeof adyenOptionsSchema>

/** What `AdyenGateway` is built from: the options, and how it talks HTTP. */
export type AdyenGatewayOptions = Omit<AdyenConfig, "type"> & GatewayHttpOptions

/** The Checkout API base URL the options name, version included. */
export function adyenCheckoutUrl(config: Pick<AdyenConfig, "checkoutUrl" | "environment" | "liveEndpointUrlPrefix">): string {
  if (config.checkoutUrl) {
    return config.checkoutUrl
  }
  return config.environment === "live" && config.liveEndpointUrlPrefix
    ? liveCheckoutUrl(config.liveEndpointUrlPrefix)
    : ADYEN_CHECKOUT_TEST_URL
}

/** The Disputes API base URL the options name, version included. */
export function adyenDisputesUrl(config: Pick<AdyenConfig, "disputesUrl" | "environment">): string {
  if (config.disputesUrl) {
    return config.disputesUrl
  }
  return config.environment === "live" ? ADYEN_DISPUTES_LIVE_URL : ADYEN_DISPUTES_TEST_URL
}

/** Every secret in the options, for the logs to scrub. */
export function adyenSecrets(config: AdyenConfig): string[] {
  return [config.apiKey, config.password, config.hmacKey, ...(config.previousHmacKeys ?? []), config.webhookPassword].filter(
    (secret): secret is string => typeof secret === "string"
  )
}

/** The authentication header of every call: the API key, or Basic with the credential's login. */
export function adyenAuthHeaders(config: Pick<AdyenConfig, "apiKey" | "user" | "password">): Record<string, string> {
  if (config.apiKey) {
    return { "x-api-key": config.apiKey }
  }
  const login = Buffer.from(`${config.user ?? ""}:${config.password ?? ""}`, "utf8").toString("base64")
  return { authorization: `Basic ${login}` }
}
