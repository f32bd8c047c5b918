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
        // Worldpay's Chargeback API, played by the sandbox with the processor's demo credentials.
        disputeGateway: {
          type: "worldpay",
          url: sandboxUrl,
          user: "demo-user",
          password: process.env.SERVICESCAN_WORLDPAY_PASSWORD ?? "demo-password",
        },
        autoRespond: process.env.SERVICESCAN_AUTO_RESPOND ?? "off",
        // Wraps the keys of archived card scans and evidence packs (test value; a store's own comes from its env).
        evidenceKey: secretOrKeyring("SERVICESCAN_EVIDENCE_KEY", "test-evidence-key-encrypting-key-0123456789"),
      },
    },
    {
      resolve: "@medusajs/medusa/payment",
      options: {
        providers: [
          {
            resolve: "./src/providers/servicescan",
            id: "servicescan",
            options: {
              checkoutUrl: sandboxUrl,
              clientScriptUrl: `${sandboxUrl}/client.js`,
              shareableKey: process.env.SERVICESCAN_SHAREABLE_KEY ?? "pk_test_servicescan_demo",
              paymentTokenApiKey: process.env.SERVICESCAN_PAYMENT_TOKEN_KEY ?? "ptk_test_servicescan_demo",
              processor: "worldpay",
              capture: "manual",
              timeoutMs: Number(process.env.SERVICESCAN_TIMEOUT_MS ?? 5000),
              maxRetries: 1,
              gateway: {
                type: "worldpay",
                url: `${sandboxUrl}/cnp/online`,
                merchantId: "demo-merchant",
                user: "demo-user",
                password: process.env.SERVICESCAN_WORLDPAY_PASSWORD ?? "demo-password",
              },
              // Saved cards: the secret that seals customers' tokens (test value; a store's own comes from its env).
              savedCards: {
                secret: secretOrKeyring("SERVICESCAN_SAVED_CARDS_SECRET", "test-saved-cards-secret-0123456789abcdef"),
                fingerprintSecret: process.env.SERVICESCAN_SAVED_CARDS_FINGERPRINT_SECRET,
              },
            },
          },
        ],
      },
    },
  ],
})
