import { defineConfig, loadEnv } from "@medusajs/framework/utils"

/**
 * The demo store's configuration: medusa-plugin-servicescan wired exactly as a
 * store owner wires the published package.
 *
 * - `plugins` brings the disputes module, the admin extension, the API routes
 *   (admin API, chargeback webhook), the poll job and the subscribers. The
 *   plugin's options are the disputes module's options.
 * - The payment providers are registered in the payment module's `providers`:
 *   Medusa never picks providers up from `plugins`. The store pays through two
 *   processors side by side, one ServiceScan provider each: Worldpay
 *   (`pp_servicescan_servicescan`) and Adyen (`pp_servicescan_adyen`); the
 *   storefront uses the one DEMO_PROCESSOR names.
 *
 * `npm run demo` (scripts/demo.mjs) sets every variable below; the defaults
 * are the sandbox's fixed demo keys and the default ports.
 */
loadEnv(process.env.NODE_ENV || "development", process.cwd())

const env = (name: string, fallback: string) => process.env[name] || fallback

const medusaUrl = env("DEMO_MEDUSA_URL", "http://localhost:9000")
const storefrontUrl = env("DEMO_STOREFRONT_URL", "http://localhost:8000")
/** One sandbox plays the checkout host, the client script host, the disputes API and the processor. */
const sandboxUrl = env("SERVICESCAN_SANDBOX_URL", "http://127.0.0.1:4010")

/** Worldpay's cnpAPI and Chargeback API share the merchant's user and password. */
const worldpayLogin = {
  merchantId: env("WORLDPAY_MERCHANT_ID", "1234567"),
  user: env("WORLDPAY_USER", "demo-user"),
  password: env("WORLDPAY_PASSWORD", "demo-password"),
}

/**
 * The sandbox's demo Adyen merchant (sandbox README, "The demo Adyen merchant"): one
 * object for the provider's `gateway` (Checkout API) and the disputes module's
 * `disputeGateway` (Disputes API and the notification webhook), as the one
 * schema reads both. The sandbox sends its notifications to this store's
 * /hooks/servicescan/adyen (scripts/demo.mjs sets the URL), signed with the
 * HMAC key and with the webhook's Basic credentials below.
 */
const adyenDemo = {
  type: "adyen" as const,
  merchantAccount: env("ADYEN_MERCHANT_ACCOUNT", "ServiceScanDemoECOM"),
  apiKey: env("ADYEN_API_KEY", "AQE_test_servicescan_demo_adyen_api_key"),
  checkoutUrl: `${sandboxUrl}/v71`,
  disputesUrl: `${sandboxUrl}/ca/services/DisputeService/v30`,
  hmacKey: env("ADYEN_HMAC_KEY", "5934AD24EED2B42F39D1F8BBAA602FF05E7D291AC95BC71EA5538AC41B6F0F56"),
  webhookUser: env("ADYEN_WEBHOOK_USER", "adyen-webhook"),
  webhookPassword: env("ADYEN_WEBHOOK_PASSWORD", "demo-webhook-password"),
}

/** What both ServiceScan providers share; each adds its processor (the token exchange's segment) and gateway. */
const providerOptions = {
  checkoutUrl: sandboxUrl,
  clientScriptUrl: `${sandboxUrl}/client.js`,
  shareableKey: env("SERVICESCAN_SHAREABLE_KEY", "pk_test_servicescan_demo"),
  paymentTokenApiKey: env("SERVICESCAN_PAYMENT_TOKEN_KEY", "ptk_test_servicescan_demo"),
  capture: "manual" as const,
  formConfig: { reportGroup: "Demo Store" },
  // Saved cards ("Sign in as the demo customer"): a real store takes its own secret from its env.
  savedCards: { secret: env("SERVICESCAN_SAVED_CARDS_SECRET", "servicescan-demo-saved-cards-secret-0123456789") },
  timeoutMs: 5000,
  maxRetries: 1,
}

/** `http://localhost:8000` also answers as `http://127.0.0.1:8000`, and a browser may use either. */
const bothHosts = (url: string) => {
  const u = new URL(url)
  const other = u.hostname === "localhost" ? "127.0.0.1" : u.hostname === "127.0.0.1" ? "localhost" : null
  return [u.origin, ...(other ? [`${u.protocol}//${other}:${u.port}`] : [])].join(",")
}

/**
 * Another storefront served by this demo backend (e.g. Medusa's DTC starter on :8000 next to the demo's page):
 * DEMO_EXTRA_STORE_CORS, comma-separated origins, is added to STORE_CORS and AUTH_CORS (each origin also
 * as its localhost/127.0.0.1 twin), instead of replacing them.
 */
const withExtraStorefronts = (cors: string) =>
  [cors, ...(process.env.DEMO_EXTRA_STORE_CORS || "").split(",").map((o) => o.trim()).filter(Boolean).map(bothHosts)].join(",")

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: {
      storeCors: withExtraStorefronts(env("STORE_CORS", bothHosts(storefrontUrl))),
      adminCors: env("ADMIN_CORS", bothHosts(medusaUrl)),
      // A storefront signs customers in (saved cards), so its origin needs the auth routes too.
      authCors: withExtraStorefronts(env("AUTH_CORS", `${bothHosts(medusaUrl)},${bothHosts(storefrontUrl)}`)),
      jwtSecret: env("JWT_SECRET", "servicescan-demo-jwt-secret"),
      cookieSecret: env("COOKIE_SECRET", "servicescan-demo-cookie-secret"),
    },
    // `medusa start` runs in production mode, where the admin's session cookie
    // is `Secure` and so never set over plain http://localhost. The demo has no TLS.
    cookieOptions: { secure: false, sameSite: "lax" },
  },
  admin: {
    path: "/app",
    storefrontUrl,
  },
  plugins: [
    {
      resolve: "medusa-plugin-servicescan",
      options: {
        baseUrl: sandboxUrl,
        secretKey: env("SERVICESCAN_SECRET_KEY", "sk_test_servicescan_demo"),
        webhookSecret: env("SERVICESCAN_WEBHOOK_SECRET", "whsec_servicescan_demo_0123456789"),
        // A real store keeps the default (3 h: the service takes hours). The
        // sandbox answers within seconds (--proof-delay), so the demo checks
        // every few seconds; src/jobs/demo-poll-proof-requests.ts runs the
        // plugin's poll as often.
        pollIntervalMs: Number(env("DEMO_POLL_INTERVAL_MS", "5000")),
        retryBaseDelayMs: 5000,
        timeoutMs: 5000,
        // The evidence loop, one dispute gateway per processor. Worldpay: the sandbox plays its
        // Chargeback API, with the processor's own credentials (Worldpay opens it to the
        // merchant's cnpAPI user); the case import job (every few seconds in the demo:
        // SERVICESCAN_CASE_IMPORT_SCHEDULE, set by scripts/demo.mjs) brings its cases in. Adyen:
        // its disputes arrive as signed notifications at /hooks/servicescan/adyen and are answered
        // through its Disputes API. `npm run demo:chargeback` raises one at either; once the scan
        // is judged valid the policy represents it.
        disputeGateway: [{ type: "worldpay", url: sandboxUrl, ...worldpayLogin }, adyenDemo],
        autoRespond: env("SERVICESCAN_AUTO_RESPOND", "represent-valid"),
        // Wraps the keys of archived card scans and evidence packs: a real store takes its own from its env.
        evidenceKey: env("SERVICESCAN_EVIDENCE_KEY", "servicescan-demo-evidence-key-0123456789"),
      },
    },
  ],
  modules: [
    {
      resolve: "@medusajs/medusa/payment",
      options: {
        providers: [
          {
            resolve: "medusa-plugin-servicescan/providers/servicescan",
            id: "servicescan", // provider id: pp_servicescan_servicescan
            options: {
              ...providerOptions,
              processor: "worldpay",
              gateway: { type: "worldpay", url: `${sandboxUrl}/cnp/online`, ...worldpayLogin, reportGroup: "Demo Store" },
            },
          },
          {
            resolve: "medusa-plugin-servicescan/providers/servicescan",
            id: "adyen", // provider id: pp_servicescan_adyen
            options: { ...providerOptions, processor: "adyen", gateway: adyenDemo },
          },
        ],
      },
    },
  ],
})
