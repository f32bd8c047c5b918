import { Text } from "@medusajs/ui"
import type { TFunction } from "i18next"
import { formatDateTime, formatRelative, proofRequestStatusLabel } from "../lib/format"
import { useServiceScanTranslation } from "../lib/i18n"
import type { ProofRequest, ScanEvidence, ScanSource } from "../lib/types"
import { ScanRow } from "./scan-evidence"
import { ProofRequestStatusBadge } from "./status-badges"

/** The state line in the admin's language (`case.proof`); the English one is {@link proofRequestStateText}. */
function proofRequestStateLine(pr: ProofRequest, t: TFunction, locale: string, now: Date = new Date()): string {
  const next = pr.next_poll_at
    ? { relative: formatRelative(pr.next_poll_at, now, locale), when: formatDateTime(pr.next_poll_at, locale) }
    : null
  switch (pr.status) {
    case "pending":
      return next ? t("case.proof.waitingNext", next) : t("case.proof.waiting")
    case "to_submit":
      return next ? t("case.proof.notSentNext", next) : t("case.proof.notSent")
    case "complete":
      return pr.completed_at ? t("case.proof.completedAt", { when: formatDateTime(pr.completed_at, locale) }) : t("case.proof.completed")
    case "failed":
      return t("case.proof.refused")
    case "submitting":
      return t("case.proof.unconfirmed")
    default:
      return proofRequestStateText(pr, now)
  }
}

/** One line that says where the request stands and when something happens next. */
export function proofRequestStateText(pr: ProofRequest, now: Date = new Date()): string {
  switch (pr.status) {
    case "pending":
      return pr.next_poll_at
        ? `Waiting for ServiceScan. Next check ${formatRelative(pr.next_poll_at, now)} (${formatDateTime(pr.next_poll_at)}).`
        : "Waiting for ServiceScan."
    case "to_submit":
      return pr.next_poll_at
        ? `Not sent yet. Next attempt ${formatRelative(pr.next_poll_at, now)} (${formatDateTime(pr.next_poll_at)}).`
        : "Not sent yet."
    case "complete":
      return pr.completed_at ? `Completed ${formatDateTime(pr.completed_at)}.` : "Completed."
    case "failed":
      return "ServiceScan refused this request."
    default:
      // `submitting` too: what happens to a lost answer is the module's to say, in one place.
      return proofRequestStatusLabel(pr.status).description
  }
}

/**
 * The scans of a proof request. Before completion the rows come from
 * `scan_ids` when the backend has not created evidence rows yet, so the admin
 * always sees which scans were sent.
 */
function scansOf(pr: ProofRequest): ScanEvidence[] {
  if (pr.scans?.length) {
    return pr.scans
  }
  return (pr.scan_ids ?? []).map((scan_id) => ({ scan_id, ground_truth: null }))
}

/** Worth-disputing scans first: they are what the merchant sends to the processor. */
function byVerdict(a: ScanEvidence, b: ScanEvidence): number {
  const rank = (scan: ScanEvidence) =>
    scan.ground_truth === "valid" ? 0 : scan.ground_truth === "invalid" || scan.ground_truth === "fraud" ? 2 : 1
  return rank(a) - rank(b)
}

type ProofRequestBlockProps = {
  proofRequest: ProofRequest
  now?: Date
  /** Scans taken for another order (a saved card's), by scan id. */
  sources?: ReadonlyMap<string, ScanSource>
}

export const ProofRequestBlock = ({ proofRequest, now, sources }: ProofRequestBlockProps) => {
  const { t, i18n } = useServiceScanTranslation()
  const scans = [...scansOf(proofRequest)].sort(byVerdict)
  const complete = proofRequest.status === "complete"
  const hasError = Boolean(proofRequest.last_error) && proofRequest.status !== "complete"
  return (
    <section className="flex flex-col gap-y-2 px-6 py-4" aria-label={t("case.proof.label", { id: proofRequest.id })}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex min-w-0 items-center gap-x-2">
          <Text size="small" leading="compact" weight="plus">
            {t("case.proof.heading")}
          </Text>
          {proofRequest.remote_id && (
            <Text
              size="xsmall"
              leading="compact"
              className="text-ui-fg-muted truncate font-mono"
              title={t("case.proof.remoteIdTitle")}
            >
              {proofRequest.remote_id}
            </Text>
          )}
        </div>
        <ProofRequestStatusBadge status={proofRequest.status} />
      </div>
      <Text size="small" className="text-ui-fg-subtle">
        {proofRequestStateLine(proofRequest, t, i18n.language, now)}
      </Text>
      {hasError && (
        <Text size="small" className="text-ui-fg-error" role="status">
          {proofRequest.attempts > 0
            ? t("case.proof.lastErrorAfter", { count: proofRequest.attempts })
            : t("case.proof.lastError")}{" "}
          {proofRequest.last_error}
        </Text>
      )}
      {scans.length > 0 ? (
        <ul className="divide-y" aria-label={t("case.proof.scans")}>
          {scans.map((scan) => (
            <ScanRow
              key={scan.id ?? scan.scan_id}
              scan={scan}
              proofComplete={complete}
              source={sources?.get(scan.scan_id.toLowerCase())}
            />
          ))}
        </ul>
      ) : (
        <Text size="small" className="text-ui-fg-muted">
          {t("case.proof.noScans")}
        </Text>
      )}
    </section>
  )
}
