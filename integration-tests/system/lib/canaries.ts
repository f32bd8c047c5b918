/**
 * Secret values of the system suites' application (app/medusa-config.ts).
 * Each is distinctive, so a hit in the secrets scan can only be a leak of
 * that very value. The payment-token and disputes keys are not here: the
 * sandbox generates them per run for the suites' own account (see
 * lib/sandbox.ts), and the run records them for the scan.
 */
export const CANARY = {
  webhookSecret: "whsec_canary_sys_7d41c09e5b2a46f38e1d",
  processorPassword: "pw-canary-sys-3f9a62c1e8b7d054",
  jwtSecret: "jwt-canary-sys-a81f20c6d39e4b57",
  cookieSecret: "cookie-canary-sys-5c0e7b19f2a84d63",
  evidenceKey: "evidence-kek-canary-sys-2b7e91d04c6a4f1e8d35",
  adyenApiKey: "AQE_canary_sys_adyen_6e2b90d417c3a58f",
  /** Hex, as Adyen shows an HMAC key; distinctive all the same. */
  adyenHmacKey: "CA4A2B005EC2E7CA4A2B005EC2E7CA4A2B005EC2E7CA4A2B005EC2E7CA4A2B00",
  adyenWebhookPassword: "adyen-wh-canary-sys-9d3c5a71e02b",
} as const

/** The processor account the suites' sandbox account is created with (the user and merchant are not secret). */
export const PROCESSOR = {
  merchantId: "7000731",
  user: "canary-user",
  password: CANARY.processorPassword,
} as const

/**
 * The Adyen merchant account the suites' sandbox account is created with (lib/sandbox.ts), and the
 * app's Adyen options (app/medusa-config.ts) for it: the sandbox plays its Checkout and Disputes
 * APIs under the suite's own merchant, company and credential, so its payments and idempotency keys
 * stay apart from the demo merchant's. The merchant, company and webhook user are not secret.
 */
export const ADYEN_MERCHANT = {
  companyAccount: "CanarySys",
  merchantAccount: "CanarySysECOM",
  apiKey: CANARY.adyenApiKey,
  hmacKey: CANARY.adyenHmacKey,
  webhookUser: "canary-adyen-webhook",
  webhookPassword: CANARY.adyenWebhookPassword,
} as const
