import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
} from "@medusajs/core-flows"
import jwt from "jsonwebtoken"
import { PROCESSOR_PROVIDER_IDS } from "./processors"

export const SERVICESCAN_PROVIDER_ID = "pp_servicescan_servicescan"
export const SYSTEM_PROVIDER_ID = "pp_system_default"

export type SeededStore = {
  regionId: string
  /** Regions by currency, for minor-unit checks (usd, jpy, kwd). */
  regions: Record<string, string>
  salesChannelId: string
  publishableKey: string
  variantId: string
  storeHeaders: { headers: Record<string, string> }
  adminHeaders: { headers: Record<string, string> }
}

/**
 * A minimal store a shopper can check out in: regions offering both ServiceScan
 * providers (Worldpay and Adyen, helpers/processors.ts) and the system provider, a sales channel with a publishable key, and
 * one product whose variant needs neither inventory nor shipping (so checkout
 * exercises payment, not fulfillment).
 */
export async function seedStore(container: MedusaContainer): Promise<SeededStore> {
  const { result: regions } = await createRegionsWorkflow(container).run({
    input: {
      regions: [
        { name: "United States", currency_code: "usd", countries: ["us"], payment_providers: [...PROCESSOR_PROVIDER_IDS, SYSTEM_PROVIDER_ID] },
        { name: "Japan", currency_code: "jpy", countries: ["jp"], payment_providers: [...PROCESSOR_PROVIDER_IDS, SYSTEM_PROVIDER_ID] },
        { name: "Kuwait", currency_code: "kwd", countries: ["kw"], payment_providers: [...PROCESSOR_PROVIDER_IDS, SYSTEM_PROVIDER_ID] },
      ],
    },
  })
  const { result: channels } = await createSalesChannelsWorkflow(container).run({
    input: { salesChannelsData: [{ name: "Web shop" }] },
  })
  const salesChannelId = channels[0].id
  const { result: keys } = await createApiKeysWorkflow(container).run({
    input: { api_keys: [{ title: "Storefront", type: "publishable", created_by: "seed" }] },
  })
  await linkSalesChannelsToApiKeyWorkflow(container).run({
    input: { id: keys[0].id, add: [salesChannelId] },
  })
  const { result: products } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: "Scanner sticker",
          status: "published",
          sales_channels: [{ id: salesChannelId }],
          options: [{ title: "Size", values: ["One"] }],
          variants: [
            {
              title: "One",
              sku: "STICKER-1",
              manage_inventory: false,
              options: { Size: "One" },
              prices: [
                { amount: 10.5, currency_code: "usd" },
                { amount: 1500, currency_code: "jpy" },
                { amount: 3.125, currency_code: "kwd" },
              ],
            },
          ],
        },
      ],
    },
  })

  return {
    regionId: regions[0].id,
    regions: Object.fromEntries(regions.map((r) => [r.currency_code, r.id])),
    salesChannelId,
    publishableKey: keys[0].token,
    variantId: products[0].variants[0].id,
    storeHeaders: { headers: { "x-publishable-api-key": keys[0].token } },
    adminHeaders: { headers: { authorization: `Bearer ${await adminToken(container)}` } },
  }
}

/** An admin user and a JWT for it, signed with the test app's secret (medusa-config.ts). */
export async function adminToken(container: MedusaContainer): Promise<string> {
  const userModule = container.resolve(Modules.USER)
  const authModule = container.resolve(Modules.AUTH)
  const user = await userModule.createUsers({ email: "admin@servicescan.test", first_name: "Ada", last_name: "Admin" })
  const authIdentity = await authModule.createAuthIdentities({
    provider_identities: [{ provider: "emailpass", entity_id: user.email }],
    app_metadata: { user_id: user.id },
  })
  const config = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
  const secret = String(config.projectConfig.http.jwtSecret)
  return jwt.sign(
    { actor_id: user.id, actor_type: "user", auth_identity_id: authIdentity.id, app_metadata: { user_id: user.id } },
    secret,
    { expiresIn: "1d" }
  )
}
