import { writeFileSync } from "node:fs"
import type {
  ExecArgs,
  IApiKeyModuleService,
  IAuthModuleService,
  IFulfillmentModuleService,
  IUserModuleService,
} from "@medusajs/framework/types"
import { ContainerRegistrationKeys, FeatureFlag, Modules } from "@medusajs/framework/utils"
import {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  createShippingOptionsWorkflow,
  createShippingProfilesWorkflow,
  createStockLocationsWorkflow,
  createTaxRegionsWorkflow,
  createUsersWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
  linkSalesChannelsToStockLocationWorkflow,
  updateRegionsWorkflow,
  updateStoresWorkflow,
} from "@medusajs/core-flows"

/**
 * Seeds the demo store, idempotently: running it again finds what exists and
 * only adds what is missing. Run by `npm run demo` as
 * `medusa exec ./src/scripts/seed.js` and writes what the storefront needs to
 * the JSON file named by DEMO_SEED_OUTPUT.
 *
 * - a store selling in USD with a "Web shop" sales channel;
 * - the region "United States" offering ServiceScan through both processors (and Medusa's system provider);
 * - a publishable key for the storefront;
 * - three products that need no shipping and no inventory, so checkout is
 *   about payment only;
 * - a warehouse (stock location) in the sales channel with a shipping fulfillment set for the
 *   United States and a flat "Standard shipping" option, so a storefront with a Delivery step
 *   (Medusa's DTC starter) has something to choose;
 * - the admin user (DEMO_ADMIN_EMAIL / DEMO_ADMIN_PASSWORD).
 */
/** The demo's ServiceScan providers, one per processor (demo/medusa-config.ts): Worldpay, Adyen. */
export const SERVICESCAN_PROVIDER_IDS = ["pp_servicescan_servicescan", "pp_servicescan_adyen"]
const SYSTEM_PROVIDER_ID = "pp_system_default"
const REGION_NAME = "United States"
const CHANNEL_NAME = "Web shop"
const KEY_TITLE = "ServiceScan demo storefront"
const LOCATION_NAME = "ServiceScan demo warehouse"
const FULFILLMENT_SET_NAME = "ServiceScan demo shipping"
const SHIPPING_OPTION_NAME = "Standard shipping"
/** Medusa's built-in manual fulfillment provider (registered by defineConfig's defaults). */
const MANUAL_FULFILLMENT_PROVIDER_ID = "manual_manual"

/** Small inline pictures, so the demo needs no file server and no network. */
const picture = (background: string, label: string) =>
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="360" viewBox="0 0 480 360">` +
      `<rect width="480" height="360" rx="24" fill="${background}"/>` +
      `<rect x="120" y="110" width="240" height="150" rx="14" fill="#fff" opacity=".92"/>` +
      `<rect x="120" y="140" width="240" height="26" fill="#1f2937" opacity=".85"/>` +
      `<rect x="140" y="196" width="120" height="14" rx="4" fill="#9ca3af"/>` +
      `<rect x="140" y="220" width="70" height="14" rx="4" fill="#d1d5db"/>` +
      `<text x="240" y="318" font-family="Helvetica,Arial,sans-serif" font-size="26" fill="#fff" text-anchor="middle">${label}</text>` +
      `</svg>`
  )

const PRODUCTS = [
  {
    handle: "scanner-sticker",
    title: "Scanner sticker",
    description: "A holographic sticker for your card reader. Ships in spirit only: this store has no shipping.",
    sku: "DEMO-STICKER",
    amount: 10.5,
    thumbnail: picture("#6366f1", "Scanner sticker"),
  },
  {
    handle: "card-sleeve",
    title: "Card sleeve",
    description: "An RFID-blocking sleeve for one payment card.",
    sku: "DEMO-SLEEVE",
    amount: 24,
    thumbnail: picture("#0d9488", "Card sleeve"),
  },
  {
    handle: "chargeback-survival-kit",
    title: "Chargeback survival kit",
    description: "Tea, a stress ball and a printed copy of your scan evidence.",
    sku: "DEMO-KIT",
    amount: 149,
    thumbnail: picture("#e11d48", "Survival kit"),
  },
]

export default async function seedDemoStore({ container }: ExecArgs) {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  const query = container.resolve(ContainerRegistrationKeys.QUERY)

  // Sales channel: the one the store already defaults to, renamed, or a new one.
  const {
    data: [store],
  } = await query.graph({ entity: "store", fields: ["id", "name", "default_sales_channel_id", "supported_currencies.*"] })
  let salesChannelId: string | undefined = store?.default_sales_channel_id ?? undefined
  if (!salesChannelId) {
    const { data: channels } = await query.graph({ entity: "sales_channel", fields: ["id"], filters: { name: CHANNEL_NAME } })
    salesChannelId = channels[0]?.id
  }
  if (!salesChannelId) {
    const { result } = await createSalesChannelsWorkflow(container).run({
      input: { salesChannelsData: [{ name: CHANNEL_NAME, description: "The demo storefront" }] },
    })
    salesChannelId = result[0].id
  }

  // Region with the ServiceScan providers.
  const { data: existingRegions } = await query.graph({
    entity: "region",
    fields: ["id", "payment_providers.id"],
    filters: { name: REGION_NAME },
  })
  let regionId: string
  if (existingRegions.length) {
    regionId = existingRegions[0].id
    const providers = (existingRegions[0].payment_providers ?? []).map((p: { id: string } | null) => p?.id)
    if (!SERVICESCAN_PROVIDER_IDS.every((id) => providers.includes(id))) {
      await updateRegionsWorkflow(container).run({
        input: { selector: { id: regionId }, update: { payment_providers: [...SERVICESCAN_PROVIDER_IDS, SYSTEM_PROVIDER_ID] } },
      })
    }
  } else {
    const { result } = await createRegionsWorkflow(container).run({
      input: {
        regions: [
          {
            name: REGION_NAME,
            currency_code: "usd",
            countries: ["us"],
            payment_providers: [...SERVICESCAN_PROVIDER_IDS, SYSTEM_PROVIDER_ID],
          },
        ],
      },
    })
    regionId = result[0].id
  }

  if (store) {
    await updateStoresWorkflow(container).run({
      input: {
        selector: { id: store.id },
        update: {
          name: "ServiceScan Demo Store",
          supported_currencies: [{ currency_code: "usd", is_default: true }],
          default_sales_channel_id: salesChannelId,
          default_region_id: regionId,
        },
      },
    })
  }

  const { data: taxRegions } = await query.graph({ entity: "tax_region", fields: ["id"], filters: { country_code: "us" } })
  if (!taxRegions.length) {
    await createTaxRegionsWorkflow(container).run({ input: [{ country_code: "us", provider_id: "tp_system" }] })
  }

  // Publishable key for the storefront, linked to the sales channel.
  const apiKeys = container.resolve<IApiKeyModuleService>(Modules.API_KEY)
  let key = (await apiKeys.listApiKeys({ title: KEY_TITLE, type: "publishable" })).find((k) => !k.revoked_at)
  if (!key) {
    const { result } = await createApiKeysWorkflow(container).run({
      input: { api_keys: [{ title: KEY_TITLE, type: "publishable", created_by: "demo seed" }] },
    })
    key = result[0]
  }
  const { data: keyChannels } = await query.graph({
    entity: "api_key",
    fields: ["id", "sales_channels.id"],
    filters: { id: key.id },
  })
  const linked = (keyChannels[0]?.sales_channels ?? []).some((c: { id: string } | null) => c?.id === salesChannelId)
  if (!linked) {
    await linkSalesChannelsToApiKeyWorkflow(container).run({ input: { id: key.id, add: [salesChannelId] } })
  }

  // Products, by handle.
  const { data: existingProducts } = await query.graph({
    entity: "product",
    fields: ["id", "handle"],
    filters: { handle: PRODUCTS.map((p) => p.handle) },
  })
  const have = new Set(existingProducts.map((p: { handle: string }) => p.handle))
  const missing = PRODUCTS.filter((p) => !have.has(p.handle))
  if (missing.length) {
    await createProductsWorkflow(container).run({
      input: {
        products: missing.map((p) => ({
          title: p.title,
          handle: p.handle,
          description: p.description,
          thumbnail: p.thumbnail,
          images: [{ url: p.thumbnail }],
          status: "published" as const,
          sales_channels: [{ id: salesChannelId! }],
          options: [{ title: "Size", values: ["One size"] }],
          variants: [
            {
              title: "One size",
              sku: p.sku,
              manage_inventory: false,
              options: { Size: "One size" },
              prices: [{ amount: p.amount, currency_code: "usd" }],
            },
          ],
        })),
      },
    })
  }

  const shippingOptionId = await ensureShipping(container, salesChannelId!, regionId)

  const adminEmail = process.env.DEMO_ADMIN_EMAIL || "admin@servicescan.test"
  const adminPassword = process.env.DEMO_ADMIN_PASSWORD || "servicescan-demo"
  const adminCreated = await ensureAdminUser(container, adminEmail, adminPassword)

  const summary = {
    publishableKey: key.token,
    regionId,
    salesChannelId,
    shippingOptionId,
    admin: { email: adminEmail, created: adminCreated },
    created: { products: missing.length },
  }
  if (process.env.DEMO_SEED_OUTPUT) {
    writeFileSync(process.env.DEMO_SEED_OUTPUT, JSON.stringify(summary, null, 2))
  }
  logger.info(
    `demo seed: region ${regionId}, ${PRODUCTS.length} products (${missing.length} new), admin ${adminEmail}${adminCreated ? " (new)" : ""}`
  )
}

/**
 * A stock location in the sales channel, served by the manual fulfillment provider, with a
 * shipping fulfillment set for the US and a flat shipping option: what the DTC starter's
 * Delivery step lists (it took seven admin calls before). Each piece is looked up by name or
 * link first, so a second run (or a run after a partial one) adds only what is missing.
 * Returns the shipping option's id.
 */
async function ensureShipping(container: ExecArgs["container"], salesChannelId: string, regionId: string): Promise<string> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const link = container.resolve(ContainerRegistrationKeys.LINK)
  const fulfillment = container.resolve<IFulfillmentModuleService>(Modules.FULFILLMENT)

  const { data: locations } = await query.graph({
    entity: "stock_location",
    fields: ["id", "sales_channels.id", "fulfillment_providers.id", "fulfillment_sets.id"],
    filters: { name: LOCATION_NAME },
  })
  let location = locations[0] as
    | { id: string; sales_channels?: ({ id: string } | null)[]; fulfillment_providers?: ({ id: string } | null)[]; fulfillment_sets?: ({ id: string } | null)[] }
    | undefined
  if (!location) {
    const { result } = await createStockLocationsWorkflow(container).run({
      input: { locations: [{ name: LOCATION_NAME, address: { address_1: "1 Demo Street", city: "New York", country_code: "US" } }] },
    })
    location = { id: result[0].id }
  }
  const has = (list: ({ id: string } | null)[] | undefined, id: string) => (list ?? []).some((x) => x?.id === id)
  if (!has(location.sales_channels, salesChannelId)) {
    await linkSalesChannelsToStockLocationWorkflow(container).run({ input: { id: location.id, add: [salesChannelId] } })
  }
  if (!has(location.fulfillment_providers, MANUAL_FULFILLMENT_PROVIDER_ID)) {
    await link.create({
      [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
      [Modules.FULFILLMENT]: { fulfillment_provider_id: MANUAL_FULFILLMENT_PROVIDER_ID },
    })
  }

  let [profile] = await fulfillment.listShippingProfiles({ type: "default" })
  if (!profile) {
    const { result } = await createShippingProfilesWorkflow(container).run({
      input: { data: [{ name: "Default Shipping Profile", type: "default" }] },
    })
    profile = result[0]
  }

  let [set] = await fulfillment.listFulfillmentSets({ name: FULFILLMENT_SET_NAME }, { relations: ["service_zones"] })
  if (!set) {
    set = await fulfillment.createFulfillmentSets({
      name: FULFILLMENT_SET_NAME,
      type: "shipping",
      service_zones: [{ name: "United States", geo_zones: [{ type: "country", country_code: "us" }] }],
    })
  }
  if (!has(location.fulfillment_sets, set.id)) {
    await link.create({
      [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
      [Modules.FULFILLMENT]: { fulfillment_set_id: set.id },
    })
  }

  const [existing] = await fulfillment.listShippingOptions({ name: SHIPPING_OPTION_NAME, service_zone: { fulfillment_set: { id: set.id } } })
  if (existing) {
    return existing.id
  }
  const { result } = await createShippingOptionsWorkflow(container).run({
    input: [
      {
        name: SHIPPING_OPTION_NAME,
        price_type: "flat",
        provider_id: MANUAL_FULFILLMENT_PROVIDER_ID,
        service_zone_id: set.service_zones[0].id,
        shipping_profile_id: profile.id,
        type: { label: "Standard", description: "Ships in 2-3 business days.", code: "standard" },
        prices: [
          { currency_code: "usd", amount: 5 },
          { region_id: regionId, amount: 5 },
        ],
        rules: [
          { attribute: "enabled_in_store", value: "true", operator: "eq" },
          { attribute: "is_return", value: "false", operator: "eq" },
        ],
      },
    ],
  })
  return result[0].id
}

/** What `medusa user -e … -p …` does, but a second run is a no-op instead of an error. */
async function ensureAdminUser(container: ExecArgs["container"], email: string, password: string): Promise<boolean> {
  const users = container.resolve<IUserModuleService>(Modules.USER)
  const auth = container.resolve<IAuthModuleService>(Modules.AUTH)
  let [user] = await users.listUsers({ email })
  const identities = await auth.listProviderIdentities({ provider: "emailpass", entity_id: email })
  if (user && identities.length) {
    return false
  }
  if (!user) {
    let roles: string[] = []
    if (FeatureFlag.isFeatureEnabled("rbac")) {
      const rbac = container.resolve(Modules.RBAC) as { listRbacRoles(filter: object): Promise<{ id: string }[]> }
      roles = (await rbac.listRbacRoles({ id: "role_super_admin" })).map((r) => r.id)
    }
    const { result } = await createUsersWorkflow(container).run({
      input: { users: [{ email, first_name: "Demo", last_name: "Admin", ...(roles.length ? { roles } : {}) }] },
    })
    user = result[0]
  }
  if (!identities.length) {
    const { authIdentity, error } = await auth.register("emailpass", { body: { email, password } })
    if (error || !authIdentity) {
      throw new Error(`could not create the admin login ${email}: ${error}`)
    }
    await auth.updateAuthIdentities({ id: authIdentity.id, app_metadata: { user_id: user.id } })
  }
  return true
}
