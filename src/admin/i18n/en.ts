import { analyticsEn } from "./analytics"
import { caseEn } from "./case"
import { settingsEn } from "./settings"
import { formsEn } from "./forms"
import { imageEn, importEn, unmatchedEn } from "./unmatched"

/**
 * The admin extension's English words, under the `servicescan` namespace.
 * English is complete by construction: every component reads its words from
 * here, and `de.ts` must have the same keys (its type says so).
 */
export const en = {
  menu: {
    disputes: "Disputes",
    settings: "ServiceScan",
  },
  common: {
    tryAgain: "Try again",
    couldNotLoad: "Could not load this",
    loading: "Loading",
    none: "–",
  },
  disputes: {
    title: "Disputes",
    subtitle: "Chargebacks on your orders and the card-scan evidence ServiceScan returned for them.",
    serviceHealth: "Service health",
    recordChargeback: "Record chargeback",
    tabs: {
      chargebacks: "Chargebacks",
      unmatched: "Unmatched cases",
      waiting: "waiting",
    },
    allDisputes: "All disputes",
    chargebackFallback: "Chargeback",
    loadingChargeback: "Loading chargeback",
    notFound: "Chargeback not found",
    couldNotLoadOne: "Could not load this chargeback",
  },
  list: {
    tableLabel: "Chargebacks",
    search: "Search chargebacks",
    searchPlaceholder: "Dispute id, order # or reason",
    loading: "Loading chargebacks",
    couldNotLoad: "Could not load chargebacks",
    filterMenu: "Add filter",
    sortMenu: "Sort",
    columnsMenu: "Columns",
    clearAll: "Clear all",
    columns: {
      dispute: "Dispute",
      order: "Order",
      customer: "Customer",
      amount: "Amount",
      reason: "Reason",
      dueBy: "Respond by",
      status: "Status",
      evidence: "Evidence",
      recorded: "Recorded",
    },
    filters: {
      status: "Status",
      dueBy: "Respond by",
      overdue: "Overdue",
      next7Days: "Within 7 days",
      next30Days: "Within 30 days",
      range: "Custom range",
      from: "From",
      to: "To",
    },
    sort: {
      asc: "Ascending",
      desc: "Descending",
    },
    empty: {
      heading: "No chargebacks yet",
      description:
        "Chargebacks arrive from the processor's webhook, or you record them on an order. Each one sends the order's card scans to ServiceScan for evidence.",
    },
    filteredEmpty: {
      heading: "No chargebacks match",
      description: "Try other filters, or clear them to see every chargeback.",
    },
    pagination: {
      of: "of",
      results: "results",
      pages: "pages",
      prev: "Prev",
      next: "Next",
    },
    orderLabel: "Order {{order}}",
    orderGone: "Order deleted",
    guest: "Guest",
    evidence: {
      notLoaded: "–",
      noScans: "No scans",
      worth_one: "{{count}} worth disputing",
      worth_other: "{{count}} worth disputing",
      fraud_one: "{{count}} likely true fraud",
      fraud_other: "{{count}} likely true fraud",
      awaiting: "awaiting ServiceScan",
      refused: "request refused",
      noVerdict: "No verdict",
    },
  },
  status: {
    chargeback: {
      open: "Open",
      evidence_pending: "Evidence pending",
      evidence_ready: "Evidence ready",
      no_evidence: "No evidence",
      won: "Won",
      lost: "Lost",
      closed: "Closed",
      representing: "Sending evidence",
      represented: "Represented",
      accepting: "Accepting liability",
      liability_accepted: "Liability accepted",
      expired: "Expired",
    },
    proofRequest: {
      to_submit: "Queued",
      submitting: "Unconfirmed",
      pending: "Pending",
      complete: "Complete",
      failed: "Failed",
    },
  },
  due: {
    none: "No deadline",
    overdue: "Overdue · {{relative}}",
    due: "Due {{relative}}",
  },
  chargeback: {
    heading: "Chargeback {{id}}",
    checkNow: "Check now",
    actionsFor: "Actions for chargeback {{id}}",
    attachScanIds: "Attach scan ids",
    resubmit: "Resubmit to ServiceScan",
    facts: {
      amount: "Disputed amount",
      dueBy: "Respond by",
      reason: "Reason",
      recorded: "Recorded",
      order: "Order",
      customer: "Customer",
      dispute: "Dispute",
    },
    reasonCode: "code {{code}}",
    importedFrom: "imported from {{gateway}}",
    openInDisputes: "Open in Disputes",
    noScans: {
      heading: "No scans sent",
      description:
        "The order's payments carry no scan id, so there is nothing to send to ServiceScan yet. Attach the scan ids you have.",
    },
  },
  order: {
    heading: "Chargebacks",
    subtitle: "Card-scan evidence from ServiceScan for disputes on this order.",
    recordChargeback: "Record chargeback",
    loading: "Loading chargebacks",
    couldNotLoad: "Could not load this order's chargebacks",
    empty: {
      heading: "No chargebacks",
      description:
        "If the processor reports a chargeback on this order, record it here. Its card scans are then sent to ServiceScan as evidence.",
    },
    scans: {
      heading: "Card scans on this order's payments",
      listLabel: "Scan ids of this order's payments",
      copy: "Copy scan id {{id}}",
      note: "Sent to ServiceScan automatically when a chargeback is recorded.",
    },
  },
  analytics: analyticsEn,
  case: caseEn,
  settings: settingsEn,
  forms: formsEn,
  unmatched: unmatchedEn,
  import: importEn,
  image: imageEn,
}

/** The shape every language must fill: the same keys as English, each a string. */
export type Translations = DeepStrings<typeof en>
type DeepStrings<T> = { [K in keyof T]: T[K] extends string ? string : DeepStrings<T[K]> }
