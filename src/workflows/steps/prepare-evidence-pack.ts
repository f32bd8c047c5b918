import type { IFileModuleService } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { buildEvidencePack, EvidencePackInput, evidencePackFileName } from "../../lib/evidence-pack"
import { EvidenceKeyMissingError, sealedEvidenceFilename } from "../../lib/sealed-evidence"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import { reasonFamilyOf } from "../../lib/reason-family"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseRow } from "../../modules/servicescan/types"
import { mapWithConcurrency } from "../../modules/servicescan/services/concurrency"
import { formatMoney } from "../../processors/money"
import { SERVICESCAN_PROVIDER_PREFIX } from "../utils/checkout-session"
import { paymentText } from "../utils/order-payments"
import { readScanImage } from "../utils/scan-image"
import { evaluateCompellingEvidenceFor } from "../utils/compelling-evidence"

type Address = NonNullable<EvidencePackInput["order"]["shippingAddress"]>

type OrderForPack = {
  id: string
  display_id: number
  created_at: string | Date
  email: string | null
  currency_code: string
  customer?: { first_name: string | null; last_name: string | null } | null
  items?: ({
    id: string
    title: string
    product_description: string | null
    variant_title: string | null
    variant_sku: string | null
    quantity: number
    unit_price: number
    total: number
  } | null)[]
  fulfillments?: ({
    id: string
    provider_id: string | null
    packed_at: string | Date | null
    shipped_at: string | Date | null
    delivered_at: string | Date | null
    canceled_at: string | Date | null
    shipping_option?: { name: string | null } | null
    labels?: ({ tracking_number: string | null } | null)[]
    items?: ({ title: string | null; quantity: number } | null)[]
  } | null)[]
  returns?: ({
    id: string
    status: string
    requested_at: string | Date | null
    received_at: string | Date | null
    items?: ({ item_id: string; quantity: number } | null)[]
  } | null)[]
  subtotal: number
  shipping_total: number
  tax_total: number
  discount_total: number
  total: number
  shipping_address?: (Address & { first_name?: string | null; last_name?: string | null }) | null
  billing_address?: (Address & { first_name?: string | null; last_name?: string | null }) | null
  payment_collections?: ({
    payments?: ({
      id: string
      provider_id: string
      amount: number
      data: Record<string, unknown> | null
      created_at: string | Date
      captures?: ({ created_at: string | Date } | null)[]
      refunds?: ({ amount: number; created_at: string | Date | null; note: string | null } | null)[]
    } | null)[]
  } | null)[]
}

type ChargebackForPack = {
  id: string
  external_id: string
  amount: number
  currency_code: string
  reason: string | null
  order_id: string
  proof_requests?: ({
    remote_id: string | null
    status: string
    submitted_at: string | Date | null
    completed_at: string | Date | null
    scans?: ({ scan_id: string; ground_truth: "valid" | "invalid" | null; reported_ground_truth: string | null } | null)[]
  } | null)[]
}

const IMAGE_CONCURRENCY = 3

/**
 * Builds the case's evidence pack (one PDF: the order, the payment, the proof
 * request and each scan's verdict, the images of the valid scans, reduced to
 * fit the processor's per-document limit, led by what wins the case's reason
 * family: fulfillments and tracking, items as sold and returns, or refunds; for Visa 10.4, the Compelling
 * Evidence 3.0 section) and keeps it in Medusa's File Module,
 * sealed like the archived images (src/lib/sealed-evidence.ts: its own key,
 * wrapped under the module's `evidenceKey`, kept on the case row) under a name
 * that says nothing. Refused before anything is built when there is no
 * `evidenceKey`. The compensation deletes the new file and restores the
 * case's previous pack.
 */
export const prepareEvidencePackStep = createStep(
  "servicescan-prepare-evidence-pack",
  async (input: { case: DisputeCaseRow; now: string }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const vault = service.getEvidenceVault()
    if (!vault.configured) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, new EvidenceKeyMissingError().message)
    }
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const row = input.case
    const {
      data: [chargeback],
    } = await query.graph({
      entity: "chargeback",
      fields: [
        "id",
        "external_id",
        "amount",
        "currency_code",
        "reason",
        "order_id",
        "proof_requests.remote_id",
        "proof_requests.status",
        "proof_requests.submitted_at",
        "proof_requests.completed_at",
        "proof_requests.scans.scan_id",
        "proof_requests.scans.ground_truth",
        "proof_requests.scans.reported_ground_truth",
      ],
      filters: { id: row.chargeback_id as string },
    })
    const cb = chargeback as ChargebackForPack
    const {
      data: [order],
    } = await query.graph({
      entity: "order",
      fields: [
        "id",
        "display_id",
        "created_at",
        "email",
        "currency_code",
        "customer.first_name",
        "customer.last_name",
        "items.id",
        "items.title",
        "items.product_description",
        "items.variant_title",
        "items.variant_sku",
        "items.quantity",
        "items.unit_price",
        "items.total",
        "subtotal",
        "shipping_total",
        "tax_total",
        "discount_total",
        "total",
        "shipping_address.*",
        "billing_address.*",
        "payment_collections.payments.id",
        "payment_collections.payments.provider_id",
        "payment_collections.payments.amount",
        "payment_collections.payments.data",
        "payment_collections.payments.created_at",
        "payment_collections.payments.captures.created_at",
        "payment_collections.payments.refunds.amount",
        "payment_collections.payments.refunds.created_at",
        "payment_collections.payments.refunds.note",
        // What wins a "not received" or "not as described" case (lib/reason-family.ts).
        "fulfillments.id",
        "fulfillments.provider_id",
        "fulfillments.packed_at",
        "fulfillments.shipped_at",
        "fulfillments.delivered_at",
        "fulfillments.canceled_at",
        "fulfillments.shipping_option.name",
        "fulfillments.labels.tracking_number",
        "fulfillments.items.title",
        "fulfillments.items.quantity",
        "returns.id",
        "returns.status",
        "returns.requested_at",
        "returns.received_at",
        "returns.items.item_id",
        "returns.items.quantity",
      ],
      filters: { id: cb.order_id },
    })
    const o = order as OrderForPack
    const currency = o.currency_code
    const money = (amount: number) => formatMoney(amount, currency)

    const payment = (o.payment_collections ?? [])
      .flatMap((collection) => collection?.payments ?? [])
      .find((p) => p?.provider_id.startsWith(SERVICESCAN_PROVIDER_PREFIX) && p.data?.cnp_txn_id === row.processor_transaction_id) ??
      (o.payment_collections ?? []).flatMap((collection) => collection?.payments ?? []).find((p) => p?.provider_id.startsWith(SERVICESCAN_PROVIDER_PREFIX))
    const data = (payment?.data ?? {}) as Record<string, unknown>
    const card = (data.card ?? {}) as { last4?: string | null; type?: string | null }

    const scans = (cb.proof_requests ?? []).flatMap((pr) => pr?.scans ?? []).filter((scan) => scan !== null)
    const validScanIds = [...new Set(scans.filter((scan) => scan.ground_truth === "valid").map((scan) => scan.scan_id))]
    const images = new Map<string, Uint8Array>()
    // The store's archive first: a pack builds while ServiceScan is down.
    await mapWithConcurrency(validScanIds, IMAGE_CONCURRENCY, async (scanId) => {
      images.set(scanId, (await readScanImage(container, scanId)).bytes)
    })

    const iso = (value: string | Date | null | undefined) => (value ? new Date(value).toISOString() : null)
    const itemTitles = new Map((o.items ?? []).flatMap((item) => (item ? [[item.id, item.title] as const] : [])))
    const family = reasonFamilyOf(row.reason_code, row.card_type)
    const name = (address?: { first_name?: string | null; last_name?: string | null } | null) =>
      [address?.first_name, address?.last_name].filter(Boolean).join(" ") || null
    // A Visa 10.4 case: the earlier transactions on the same saved card (nothing is read for any other).
    const compellingEvidence = await evaluateCompellingEvidenceFor(container, {
      order_id: cb.order_id,
      processor_transaction_id: row.processor_transaction_id,
      reason_code: row.reason_code,
      card_type: card.type ?? row.card_type,
    })
    const packInput: EvidencePackInput = {
      generatedAt: new Date(input.now),
      case: {
        gateway: row.gateway,
        caseId: row.case_id,
        cycle: row.cycle,
        reasonCode: row.reason_code,
        reasonDescription: row.reason_description,
        replyBy: row.reply_by,
        amount: formatMoney(row.amount as number, row.currency_code),
        acquirerReferenceNumber: row.acquirer_reference_number,
      },
      chargeback: { id: cb.id, externalId: cb.external_id, amount: formatMoney(cb.amount, cb.currency_code), reason: cb.reason },
      order: {
        id: o.id,
        displayId: o.display_id,
        createdAt: new Date(o.created_at).toISOString(),
        email: o.email,
        customerName: name(o.customer) ?? name(o.billing_address) ?? name(o.shipping_address),
        currencyCode: currency,
        items: (o.items ?? []).flatMap((item) =>
          item
            ? [{ title: item.title, description: item.product_description, variant: item.variant_title, sku: item.variant_sku, quantity: item.quantity, unitPrice: money(item.unit_price), total: money(item.total) }]
            : []
        ),
        subtotal: money(o.subtotal),
        shippingTotal: money(o.shipping_total),
        taxTotal: money(o.tax_total),
        discountTotal: money(o.discount_total),
        total: money(o.total),
        shippingAddress: o.shipping_address ?? null,
        billingAddress: o.billing_address ?? null,
      },
      payment: {
        provider: payment?.provider_id ?? "unknown",
        processorTransactionId: paymentText(data.cnp_txn_id),
        processorOrderId: paymentText(data.order_id),
        authCode: paymentText(data.auth_code),
        cardType: card.type ?? row.card_type,
        last4: card.last4 ?? row.card_last4,
        amount: payment ? money(payment.amount) : money(o.total),
        authorizedAt: paymentText(data.authorized_at),
        capturedAt: (payment?.captures ?? []).flatMap((capture) => (capture ? [new Date(capture.created_at).toISOString()] : [])),
      },
      proofRequests: (cb.proof_requests ?? []).flatMap((pr) =>
        pr
          ? [
              {
                remoteId: pr.remote_id,
                status: pr.status,
                submittedAt: pr.submitted_at ? new Date(pr.submitted_at).toISOString() : null,
                completedAt: pr.completed_at ? new Date(pr.completed_at).toISOString() : null,
                scans: (pr.scans ?? []).flatMap((scan) =>
                  scan
                    ? [
                        {
                          scanId: scan.scan_id,
                          verdict: scan.ground_truth,
                          reportedGroundTruth: scan.reported_ground_truth,
                          fromOrder: null,
                          image: images.has(scan.scan_id) ? { bytes: images.get(scan.scan_id) as Uint8Array, contentType: "image/jpeg" } : null,
                        },
                      ]
                    : []
                ),
              },
            ]
          : []
      ),
      family,
      fulfillments: (o.fulfillments ?? []).flatMap((f) =>
        f
          ? [
              {
                id: f.id,
                carrier: [f.shipping_option?.name, f.provider_id ? `(${f.provider_id})` : null].filter(Boolean).join(" ") || null,
                trackingNumbers: (f.labels ?? []).flatMap((label) => (label?.tracking_number ? [label.tracking_number] : [])),
                packedAt: iso(f.packed_at),
                shippedAt: iso(f.shipped_at),
                deliveredAt: iso(f.delivered_at),
                canceledAt: iso(f.canceled_at),
                items: (f.items ?? []).flatMap((item) => (item ? [`${item.title ?? "Item"} x ${item.quantity}`] : [])),
              },
            ]
          : []
      ),
      returns: (o.returns ?? []).flatMap((r) =>
        r
          ? [
              {
                id: r.id,
                status: r.status,
                requestedAt: iso(r.requested_at),
                receivedAt: iso(r.received_at),
                items: (r.items ?? []).flatMap((item) => (item ? [`${itemTitles.get(item.item_id) ?? item.item_id} x ${item.quantity}`] : [])),
              },
            ]
          : []
      ),
      refunds: (payment?.refunds ?? []).flatMap((refund) =>
        refund ? [{ amount: money(refund.amount), createdAt: iso(refund.created_at), note: refund.note }] : []
      ),
      compellingEvidence,
    }
    const pack = await buildEvidencePack(packInput, { maxBytes: service.getSettings().max_document_bytes })
    const files = container.resolve<IFileModuleService>(Modules.FILE)
    const { sealed, key } = vault.seal(Buffer.from(pack.pdf), { kind: "evidence-pack", disputeCaseId: row.id })
    const file = await files.createFiles({
      filename: sealedEvidenceFilename(),
      mimeType: "application/octet-stream",
      content: sealed.toString("base64"),
      access: "private",
    })
    const previous = {
      id: row.id,
      pack_file_id: row.pack_file_id,
      pack_key: row.pack_key,
      pack_bytes: row.pack_bytes,
      pack_generated_at: row.pack_generated_at,
      pack_downscaled: row.pack_downscaled,
    }
    await service.updateDisputeCases({
      id: row.id,
      pack_file_id: file.id,
      pack_key: key,
      pack_bytes: pack.bytes,
      pack_generated_at: new Date(input.now),
      pack_downscaled: pack.downscaled,
    })
    return new StepResponse(
      {
        file_id: file.id,
        // Wrapped: it opens the file only inside this server, with the evidence key.
        key,
        document_id: evidencePackFileName(row.case_id),
        bytes: pack.bytes,
        downscaled: pack.downscaled,
        // Deleted once the whole answer went through (the compensation may still need it).
        replaced_file_id: previous.pack_file_id,
      },
      { file_id: file.id, previous }
    )
  },
  async (undo, { container }) => {
    if (!undo) {
      return
    }
    await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).updateDisputeCases(undo.previous)
    await container.resolve<IFileModuleService>(Modules.FILE).deleteFiles([undo.file_id])
  }
)
