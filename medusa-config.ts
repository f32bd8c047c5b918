import { defineConfig, loadEnv, Modules } from "@medusajs/framework/utils"

/**
 * The test application's configuration. `medusaIntegrationTestRunner` boots the
 * project at the repository root, so this file wires the plugin's own sources
 * the way a store owner wires the published package (see README):
 * payment providers are registered in the payment module, never in `plugins`.
 *
 * The integration suites start the sandbox themselves and export its URL in
 * SERVICESCAN_SANDBOX_URL before the app boots; the keys are the sandbox's
 * fixed demo keys.
 */
loadEnv(process.env.NODE_ENV || "development", process.cwd())

const sandboxUrl = process.env.SERVICESCAN_SANDBOX_URL ?? "http://127.0.0.1:4010"

/** A secret, or a keyring given as JSON (`[{"id":"k2","secret":"..."},...]`): how a spec rotates keys in a process it starts. */
const secretOrKeyring = (name: string, fallback: string) => {
  const value = process.env[name] ?? fallback
  return value.trimStart().startsWith("[") ? (JSON.parse(value) as { id: string; secret: string }[]) : value
}

/**
 * The sandbox's demo Adyen merchant (sandbox README: "The demo Adyen merchant"), one object for the
 * provider's `gateway` and the disputes module's `disputeGateway`: the same schema reads both.
 */
const adyenDemo = {
  type: "adyen" as const,
  merchantAccount: "ServiceScanDemoECOM",
  apiKey: process.env.SERVICESCAN_ADYEN_API_KEY ?? "AQE_test_servicescan_demo_adyen_api_key",
  checkoutUrl: `${sandboxUrl}/v71`,
  disputesUrl: `${sandboxUrl}/ca/services/DisputeService/v30`,
  hmacKey: process.env.SERVICESCAN_ADYEN_HMAC_KEY ?? "5934AD24EED2B42F39D1F8BBAA602FF05E7D291AC95BC71EA5538AC41B6F0F56",
  webhookUser: "adyen-webhook",
  webhookPassword: process.env.SERVICESCAN_ADYEN_WEBHOOK_PASSWORD ?? "demo-webhook-password",
}

/** What both ServiceScan providers share; each adds its processor (the exchange segment) and gateway. */
const providerOptions = {
  checkoutUrl: sandboxUrl,
  clientScriptUrl: `${sandboxUrl}/client.js`,
  shareableKey: process.env.SERVICESCAN_SHAREABLE_KEY ?? "pk_test_servicescan_demo",
  paymentTokenApiKey: process.env.SERVICESCAN_PAYMENT_TOKEN_KEY ?? "ptk_test_servicescan_demo",
  capture: "manual" as const,
  timeoutMs: Number(process.env.SERVICESCAN_TIMEOUT_MS ?? 5000),
  maxRetries: 1,
  // Saved cards: the secret that seals customers' tokens (test value; a store's own comes from its env).
  savedCards: {
    secret: secretOrKeyring("SERVICESCAN_SAVED_CARDS_SECRET", "test-saved-cards-secret-0123456789abcdef"),
    fingerprintSecret: process.env.SERVICESCAN_SAVED_CARDS_FINGERPRINT_SECRET,
  },
}

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: {
      storeCors: process.env.STORE_CORS ?? "http://localhost:8000",
      adminCors: process.env.ADMIN_CORS ?? "http://localhost:9000",
      authCors: process.env.AUTH_CORS ?? "http://localhost:9000",
      jwtSecret: process.env.JWT_SECRET ?? "test-jwt-secret",
      cookieSecret: process.env.COOKIE_SECRET ?? "test-cookie-secret",
    },
  },
  admin: { disable: true },
  // `npm run bench:image-proxy` only: a throw-away plugin folder with the baseline's admin route
  // (integration-tests/bench/baseline-plugin.ts), never part of the shipped plugin.
  plugins: process.env.SERVICESCAN_BENCH_PLUGIN ? [process.env.SERVICESCAN_BENCH_PLUGIN] : [],
  modules: [
    {
      // Medusa's RBAC, on with MEDUSA_FF_RBAC=true (integration-tests/http/rbac.spec.ts). Declared here
      // because Medusa 2.21 reads its own flags only after this file, so its default leaves the module off.
      resolve: "@medusajs/medusa/rbac",
      disable: process.env.MEDUSA_FF_RBAC !== "true",
    },
    {
      // The disputes module (chargebacks, proof requests, scan evidence); see docs/disputes.md.
      resolve: "./src/modules/servicescan",
      options: {
        baseUrl: sandboxUrl,
        secretKey: process.env.SERVICESCAN_SECRET_KEY ?? "sk_test_servicescan_demo",
        webhookSecret: process.env.SERVICESCAN_WEBHOOK_SECRET ?? "whsec_test_servicescan_demo_0123456789",
        timeoutMs: Number(process.env.SERVICESCAN_TIMEOUT_MS ?? 5000),
        // One gateway per processor, played by the sandbox: Worldpay's Chargeback API (cases read by the
        // import job) and Adyen's Disputes API with its webhook (cases pushed to /hooks/servicescan/adyen).
        disputeGateway: [
          {
            type: "worldpay",
            url: sandboxUrl,
            user: "demo-user",
            password: process.env.SERVICESCAN_WORLDPAY_PASSWORD ?? "demo-password",
          },
          adyenDemo,
        ],
        autoRespond: process.env.SERVICESCAN_AUTO_RESPOND ?? "off",
        // Wraps the keys of archived card scans and evidence packs (test value; a store's own comes from its env).
        evidenceKey: secretOrKeyring("SERVICESCAN_EVIDENCE_KEY", "test-evidence-key-encrypting-key-0123456789"),
        // Case alerts (docs/disputes.md: Alerts): the bell always; email when a spec names a template.
        alerts: {
          dueSoonDays: Number(process.env.SERVICESCAN_ALERT_DUE_SOON_DAYS ?? 5),
          ...(process.env.SERVICESCAN_ALERT_EMAIL_TEMPLATE
            ? { emailTemplate: process.env.SERVICESCAN_ALERT_EMAIL_TEMPLATE, emailTo: ["disputes@example.com"] }
            : {}),
        },
      },
    },
    {
      // Medusa's default Notification Module serves only the `feed` channel (the admin's bell); its
      // local provider here also takes `email`, so the alert specs can count what the plugin emails.
      resolve: "@medusajs/medusa/notification",
      options: {
        providers: [
          {
            resolve: "@medusajs/medusa/notification-local",
            id: "local",
            options: { name: "Local Notification Provider", channels: ["feed", "email"] },
          },
        ],
      },
    },
    {
      resolve: "@medusajs/medusa/payment",
      options: {
        providers: [
          {
            // Worldpay cnpAPI: pp_servicescan_servicescan.
            resolve: "./src/providers/servicescan",
            id: "servicescan",
            options: {
              ...providerOptions,
              processor: "worldpay",
              gateway: {
                type: "worldpay",
                url: `${sandboxUrl}/cnp/online`,
                merchantId: "1234567",
                user: "demo-user",
                password: process.env.SERVICESCAN_WORLDPAY_PASSWORD ?? "demo-password",
              },
            },
          },
          {
            // Adyen Checkout v71: pp_servicescan_adyen.
            resolve: "./src/providers/servicescan",
            id: "adyen",
            options: { ...providerOptions, processor: "adyen", gateway: adyenDemo },
          },
        ],
      },
    },
  ],
})
