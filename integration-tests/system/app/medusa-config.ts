import { defineConfig } from "@medusajs/framework/utils"
import { ADYEN_MERCHANT, CANARY, PROCESSOR } from "../lib/canaries"

/**
 * The application the system suites (integration-tests/system) run as real
 * `medusa start` processes. lib/app.ts links it into a scratch folder next to
 * the plugin's sources, so the plugin runs exactly as in the HTTP suites, and
 * passes everything that differs per process through the environment:
 *
 * - DATABASE_URL, MEDUSA_WORKER_MODE ("shared" | "server" | "worker");
 * - SYSTEM_REDIS_URL: when set, Medusa's production topology: the Redis event
 *   bus, workflow engine, locking provider and caching provider, and Redis
 *   sessions (the README's "Production" section is this configuration), with
 *   Medusa's core caching switched on (its `caching` feature flag), so the
 *   plugin is proven with cached reads across processes too; without it,
 *   Medusa's in-process defaults;
 * - SERVICESCAN_SANDBOX_URL: where this process reaches the sandbox (each
 *   process gets its own counting proxy, so the suites see who called);
 * - SYSTEM_SHAREABLE_KEY, SYSTEM_PAYMENT_TOKEN_KEY, SYSTEM_SECRET_KEY: the
 *   suite's sandbox account's keys (generated per run);
 * - SYSTEM_* tuning: the sandbox answers in milliseconds, not hours.
 *
 * The other secrets are the distinctive canaries of lib/canaries.ts, so the
 * secrets suite can tell a leak from a coincidence.
 */
const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback
  if (value === undefined) {
    throw new Error(`integration-tests/system/app: ${name} is not set`)
  }
  return value
}
const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)

const sandboxUrl = env("SERVICESCAN_SANDBOX_URL")
const redisUrl = process.env.SYSTEM_REDIS_URL

const productionModules = redisUrl
  ? [
      { resolve: "@medusajs/medusa/event-bus-redis", options: { redisUrl } },
      { resolve: "@medusajs/medusa/workflow-engine-redis", options: { redis: { redisUrl } } },
      {
        resolve: "@medusajs/medusa/locking",
        options: {
          providers: [{ resolve: "@medusajs/medusa/locking-redis", id: "locking-redis", is_default: true, options: { redisUrl } }],
        },
      },
      {
        resolve: "@medusajs/medusa/caching",
        options: {
          providers: [{ resolve: "@medusajs/medusa/caching-redis", id: "caching-redis", is_default: true, options: { redisUrl } }],
        },
      },
    ]
  : []

/** What both ServiceScan providers share; each adds its processor (the token exchange's segment) and gateway. */
const providerOptions = {
  checkoutUrl: sandboxUrl,
  clientScriptUrl: `${sandboxUrl}/client.js`,
  shareableKey: env("SYSTEM_SHAREABLE_KEY"),
  paymentTokenApiKey: env("SYSTEM_PAYMENT_TOKEN_KEY"),
  capture: "manual" as const,
  timeoutMs: number("SYSTEM_TIMEOUT_MS", 15_000),
  maxRetries: 1,
}

/**
 * The suite account's Adyen merchant (lib/canaries.ts), played by the sandbox: one object for the
 * provider's `gateway` and the module's `disputeGateway`, as the root medusa-config.ts's `adyenDemo`.
 */
const adyen = {
  type: "adyen" as const,
  merchantAccount: ADYEN_MERCHANT.merchantAccount,
  apiKey: ADYEN_MERCHANT.apiKey,
  hmacKey: ADYEN_MERCHANT.hmacKey,
  webhookUser: ADYEN_MERCHANT.webhookUser,
  webhookPassword: ADYEN_MERCHANT.webhookPassword,
  checkoutUrl: `${sandboxUrl}/v71`,
  disputesUrl: `${sandboxUrl}/ca/services/DisputeService/v30`,
}

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: env("DATABASE_URL"),
    workerMode: env("MEDUSA_WORKER_MODE", "shared") as "shared" | "worker" | "server",
    redisUrl,
    http: {
      storeCors: "http://localhost:8000",
      adminCors: "http://localhost:9000",
      authCors: "http://localhost:9000",
      jwtSecret: CANARY.jwtSecret,
      cookieSecret: CANARY.cookieSecret,
    },
  },
  admin: { disable: true },
  featureFlags: redisUrl ? { caching: true } : {},
  modules: [
    ...productionModules,
    {
      resolve: "./src/modules/servicescan",
      options: {
        baseUrl: sandboxUrl,
        secretKey: env("SYSTEM_SECRET_KEY"),
        webhookSecret: CANARY.webhookSecret,
        evidenceKey: CANARY.evidenceKey,
        timeoutMs: number("SYSTEM_TIMEOUT_MS", 15_000),
        pollIntervalMs: number("SYSTEM_POLL_INTERVAL_MS", 2000),
        retryBaseDelayMs: number("SYSTEM_RETRY_BASE_DELAY_MS", 500),
        // A reset mid-PUT leaves the outcome unknown; the faults suite drains in minutes, not the default hour.
        resubmitUnconfirmedAfterMs: number("SYSTEM_RESUBMIT_AFTER_MS", 60_000),
        // Completions a shopper gave up on are settled (an orphan authorization released) after a minute.
        checkoutReconcileAfterMs: number("SYSTEM_CHECKOUT_RECONCILE_AFTER_MS", 60_000),
        pageSize: number("SYSTEM_PAGE_SIZE", 250),
        concurrency: number("SYSTEM_CONCURRENCY", 8),
        // Adyen's disputes, pushed to /hooks/servicescan/adyen (the topology suite raises one). Worldpay's
        // Chargeback API is left out: its case import would poll the sandbox in every suite, and the
        // suites' Worldpay chargebacks arrive through ServiceScan's own webhook.
        disputeGateway: [adyen],
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
              gateway: { type: "worldpay", url: `${sandboxUrl}/cnp/online`, ...PROCESSOR },
            },
          },
          {
            // Adyen Checkout v71: pp_servicescan_adyen, beside Worldpay as in the root medusa-config.ts.
            resolve: "./src/providers/servicescan",
            id: "adyen",
            options: { ...providerOptions, processor: "adyen", gateway: adyen },
          },
        ],
      },
    },
  ],
})
