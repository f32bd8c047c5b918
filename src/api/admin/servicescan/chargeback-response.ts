import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { evaluateCompellingEvidenceWorkflow } from "../../../workflows/evaluate-compelling-evidence"
import { listScanSourcesWorkflow } from "../../../workflows/list-scan-sources"
import { CHARGEBACK_QUERY_FIELDS, SERVER_ONLY_EVIDENCE_FIELDS } from "./query-config"

const QUERYABLE = new Set(CHARGEBACK_QUERY_FIELDS)
const SERVER_ONLY = new Set(SERVER_ONLY_EVIDENCE_FIELDS)

/**
 * The fields an admin route hands to Query: only exact paths of the allow-list.
 * A second gate behind `validateAndTransformQuery`'s: whatever another
 * middleware adds to `req.allowed`, or however Medusa expands `*` selections,
 * no wildcard and no server-only column reaches Query.
 */
export function chargebackQueryFields(requested: readonly string[]): string[] {
  const fields = requested.filter((field) => QUERYABLE.has(field))
  return fields.includes("id") ? fields : ["id", ...fields]
}

type Row = Record<string, unknown>

/**
 * The last gate, on the way out: server-only evidence columns are removed
 * from whatever Query answered.
 */
export function redactChargeback<T>(chargeback: T): T {
  if (!isRow(chargeback) || !Array.isArray(chargeback.proof_requests)) {
    return chargeback
  }
  for (const proofRequest of chargeback.proof_requests) {
    if (isRow(proofRequest) && Array.isArray(proofRequest.scans)) {
      for (const scan of proofRequest.scans) {
        if (isRow(scan)) {
          for (const key of Object.keys(scan)) {
            if (SERVER_ONLY.has(key)) {
              delete scan[key]
            }
          }
        }
      }
    }
  }
  return chargeback
}

/**
 * Adds `scan_sources` to each chargeback read with its proof requests: the
 * scans its evidence borrowed from other orders (saved cards) and which order
 * each came from, so the admin can say so without another request.
 */
export async function withScanSources<T>(scope: MedusaContainer, chargebacks: T[]): Promise<T[]> {
  const rows: Row[] = chargebacks.flatMap((chargeback) => (isRow(chargeback) ? [chargeback] : []))
  const withEvidence = rows.filter((row) => typeof row.id === "string" && Array.isArray(row.proof_requests))
  if (!withEvidence.length) {
    return chargebacks
  }
  const { result } = await listScanSourcesWorkflow(scope).run({
    input: { chargeback_ids: withEvidence.map((chargeback) => chargeback.id as string) },
  })
  for (const chargeback of withEvidence) {
    chargeback.scan_sources = result[chargeback.id as string] ?? []
  }
  return chargebacks
}

/** The order a chargeback is on, as the admin names it: `#display_id` and the customer. */
export type AdminOrderSummary = {
  id: string
  display_id: number | null
  email: string | null
  /** The customer's first and last name, or null when the order's customer has none (a guest). */
  customer_name: string | null
}

type OrderRow = {
  id: string
  display_id?: number | null
  email?: string | null
  customer?: { first_name?: string | null; last_name?: string | null; email?: string | null } | null
}

/**
 * Adds `order` (display id and customer) to each chargeback, read for the
 * whole page in one Query call, so a list of 100 costs one extra query, not
 * 100. A chargeback whose order is gone gets `order: null`.
 */
export async function withOrderSummaries<T>(scope: MedusaContainer, chargebacks: T[]): Promise<T[]> {
  const rows: Row[] = chargebacks.flatMap((chargeback) => (isRow(chargeback) ? [chargeback] : []))
  const orderIds = [...new Set(rows.map((row) => row.order_id).filter((id): id is string => typeof id === "string"))]
  if (!orderIds.length) {
    return chargebacks
  }
  const query = scope.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "order",
    fields: ["id", "display_id", "email", "customer.first_name", "customer.last_name", "customer.email"],
    filters: { id: orderIds },
  })
  const byId = new Map<string, AdminOrderSummary>()
  for (const order of data as OrderRow[]) {
    const name = [order.customer?.first_name, order.customer?.last_name]
      .map((part) => part?.trim())
      .filter(Boolean)
      .join(" ")
    byId.set(order.id, {
      id: order.id,
      display_id: typeof order.display_id === "number" ? order.display_id : null,
      email: order.email ?? order.customer?.email ?? null,
      customer_name: name || null,
    })
  }
  for (const row of rows) {
    row.order = typeof row.order_id === "string" ? (byId.get(row.order_id) ?? null) : null
  }
  return chargebacks
}

/** One chargeback as the admin API answers it, or undefined. */
export async function readAdminChargeback(
  scope: MedusaContainer,
  id: string,
  fields: readonly string[],
  options: { throwIfKeyNotFound?: boolean } = {}
): Promise<Row | undefined> {
  const query = scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [chargeback],
  } = await query.graph(
    { entity: "chargeback", fields: chargebackQueryFields(fields), filters: { id } },
    options.throwIfKeyNotFound ? { throwIfKeyNotFound: true } : undefined
  )
  if (chargeback === undefined) {
    return undefined
  }
  const [answered] = await withOrderSummaries(scope, await withScanSources(scope, [redactChargeback(chargeback as Row)]))
  return await withCompellingEvidence(scope, answered)
}

/**
 * Adds `compelling_evidence` to one chargeback: whether its case qualifies for
 * Visa Compelling Evidence 3.0 (`applicable`, `qualifies`, `prior_count`, and
 * the `reason` code when not), never a data element's value. Only on the
 * detail: it reads the card's history, which a list of 100 must not.
 */
async function withCompellingEvidence(scope: MedusaContainer, chargeback: Row): Promise<Row> {
  if (typeof chargeback.id !== "string") {
    return chargeback
  }
  const { result } = await evaluateCompellingEvidenceWorkflow(scope).run({ input: { chargeback_ids: [chargeback.id] } })
  chargeback.compelling_evidence = result[chargeback.id] ?? null
  return chargeback
}

function isRow(value: unknown): value is Row {
  return typeof value === "object" && value !== null
}
