import type { MedusaContainer, PaymentCustomerDTO } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { SERVICESCAN_PROVIDER_PREFIX } from "./checkout-session"

/** A customer's account holder at one of this plugin's providers, as Medusa stores it. */
export type ServiceScanAccountHolder = {
  id: string
  provider_id: string
  external_id: string
  email: string | null
  data: Record<string, unknown>
}

/**
 * A customer, as the payment providers are given one, and their account
 * holders at this plugin's providers (Medusa links customer ↔ account holder
 * when the customer's first payment session is created). Null when the
 * customer does not exist.
 */
export async function loadServiceScanAccountHolders(
  container: MedusaContainer,
  customerId: string
): Promise<{ customer: PaymentCustomerDTO; holders: ServiceScanAccountHolder[] } | null> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "customer",
    fields: [
      "id",
      "email",
      "first_name",
      "last_name",
      "company_name",
      "phone",
      "account_holders.id",
      "account_holders.provider_id",
      "account_holders.external_id",
      "account_holders.email",
      "account_holders.data",
    ],
    filters: { id: customerId },
  })
  const row = data[0] as
    | (PaymentCustomerDTO & { account_holders?: (ServiceScanAccountHolder | null)[] | null })
    | undefined
  if (!row) {
    return null
  }
  const { account_holders, ...customer } = row
  const holders = (account_holders ?? []).filter(
    (holder): holder is ServiceScanAccountHolder => !!holder && holder.provider_id.startsWith(SERVICESCAN_PROVIDER_PREFIX)
  )
  return { customer, holders }
}

/** The Locking Module key under which one account holder's cards are read and written. */
export function accountHolderLockKey(accountHolderId: string): string {
  return `servicescan:account-holder:${accountHolderId}`
}

/** One account holder as stored now (read under its lock before a write). */
export async function readAccountHolder(
  container: MedusaContainer,
  id: string
): Promise<{ id: string; data: Record<string, unknown> | null } | undefined> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "account_holder", fields: ["id", "data"], filters: { id } })
  return data[0] as { id: string; data: Record<string, unknown> | null } | undefined
}
