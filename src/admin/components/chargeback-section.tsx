import { ArrowPath, ArrowUpRightOnBox, CheckCircle, PaperClip, XCircle, XMark } from "@medusajs/icons"
import { Button, Container, Heading, Text, toast, usePrompt } from "@medusajs/ui"
import { useMemo, useState } from "react"
import { Link } from "react-router-dom"
import { errorMessage } from "../lib/errors"
import { formatDateTime, formatMoney, gatewayDisplayName, humanize } from "../lib/format"
import { useServiceScanTranslation } from "../lib/i18n"
import { chargebackDisplayView } from "../lib/status-meanings"
import { useCheckChargeback, useSetChargebackOutcome, type CheckSummary } from "../lib/queries"
import type { Chargeback, ChargebackOutcome } from "../lib/types"
import { ActionMenu } from "./action-menu"
import { AttachScansDrawer } from "./attach-scans-drawer"
import { DisputeCasePanel } from "./dispute-case-panel"
import { DueDate } from "./due-date"
import { Fact } from "./fact"
import { ProofRequestBlock } from "./proof-request"
import { EmptyState } from "./states"
import { OrderReference } from "./order-reference"
import { ChargebackStatusBadge } from "./status-badges"

const FINAL = new Set(["won", "lost", "closed"])

const OUTCOME_TEXT: Record<ChargebackOutcome, { label: string; done: string }> = {
  won: { label: "Mark as won", done: "Marked as won" },
  lost: { label: "Mark as lost", done: "Marked as lost" },
  closed: { label: "Close without decision", done: "Closed" },
}

/** A toast for "check now" that says what actually happened, not just "done". */
export function describeCheck(summary: CheckSummary | undefined): { title: string; description: string; tone: "success" | "info" | "warning" } {
  const s = summary ?? {}
  const errors = (s.errors ?? 0) + (s.submission_errors ?? 0)
  if (errors > 0) {
    return {
      tone: "warning",
      title: "Checked, with errors",
      description: `${errors} call${errors === 1 ? "" : "s"} to ServiceScan failed; the proof request shows the error and is retried automatically.`,
    }
  }
  if ((s.completed ?? 0) > 0) {
    return { tone: "success", title: "Evidence received", description: "ServiceScan returned its verdict on the scans." }
  }
  if ((s.submitted ?? 0) > 0) {
    return { tone: "success", title: "Sent to ServiceScan", description: "The scans were submitted; the verdict usually takes a few hours." }
  }
  if ((s.still_pending ?? 0) > 0) {
    return { tone: "info", title: "Still pending", description: "ServiceScan has not finished; it is checked again automatically." }
  }
  return { tone: "info", title: "Up to date", description: "There was nothing waiting on ServiceScan." }
}

type ChargebackSectionProps = {
  chargeback: Chargeback
  /** On the order page the order link is noise; elsewhere it is the way back to the order. */
  showOrderLink?: boolean
  /** Link to the dispute's own page (from the order widget). */
  showDetailLink?: boolean
  /** `h1` when the section is the page (the dispute's own route), `h2` inside another page. */
  headingLevel?: "h1" | "h2"
}

/**
 * One chargeback with its evidence: the facts the processor gave, where the
 * proof requests stand, and every scan with ServiceScan's verdict and image.
 */
export const ChargebackSection = ({
  chargeback,
  showOrderLink = false,
  showDetailLink = false,
  headingLevel = "h2",
}: ChargebackSectionProps) => {
  const prompt = usePrompt()
  const { t, i18n } = useServiceScanTranslation()
  const [attachOpen, setAttachOpen] = useState(false)
  const check = useCheckChargeback(chargeback.id)
  const outcome = useSetChargebackOutcome(chargeback.id)
  const proofRequests = chargeback.proof_requests ?? []
  // Scans borrowed from earlier orders (saved cards), by scan id.
  const sources = useMemo(
    () => new Map((chargeback.scan_sources ?? []).map((source) => [source.scan_id.toLowerCase(), source])),
    [chargeback.scan_sources]
  )
  const settled = FINAL.has(chargeback.status)
  const unconfirmed = proofRequests.some((pr) => pr.status === "submitting" || pr.status === "failed")
  // The same status as the list's, following the case: lib/status-meanings.ts.
  const statusView = chargebackDisplayView(chargeback)

  const runCheck = (resubmit: boolean) =>
    check.mutate(resubmit ? { resubmit: true } : undefined, {
      onSuccess: ({ check: summary }) => {
        const view = describeCheck(summary)
        toast[view.tone](view.title, { description: view.description })
      },
      onError: (error) => toast.error("Check failed", { description: errorMessage(error) }),
    })

  const resubmit = async () => {
    const confirmed = await prompt({
      title: "Resubmit to ServiceScan?",
      description:
        "ServiceScan's answer to the earlier submission was lost or it refused it, so it may already hold this request. Resubmitting can create a second proof request for the same scans. That is harmless, but do it only if the request does not turn pending.",
      confirmText: "Resubmit",
      cancelText: "Cancel",
      variant: "confirmation",
    })
    if (confirmed) {
      runCheck(true)
    }
  }

  const setOutcome = async (value: ChargebackOutcome) => {
    const confirmed = await prompt({
      title: `${OUTCOME_TEXT[value].label}?`,
      description: `Chargeback ${chargeback.external_id} will be ${value === "closed" ? "closed" : `marked as ${value}`}. Evidence that arrives later is still recorded but no longer changes its status.`,
      confirmText: "Confirm",
      cancelText: "Cancel",
      variant: "confirmation",
    })
    if (!confirmed) {
      return
    }
    outcome.mutate(value, {
      onSuccess: () => toast.success(OUTCOME_TEXT[value].done, { description: `Chargeback ${chargeback.external_id}` }),
      onError: (error) => toast.error("Could not set the outcome", { description: errorMessage(error) }),
    })
  }

  return (
    <Container className="divide-y p-0" data-testid="chargeback-section">
      <div className="flex items-start justify-between gap-x-4 px-6 py-4">
        <div className="flex min-w-0 flex-col gap-y-1">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <Heading level={headingLevel} className="truncate">
              {t("chargeback.heading", { id: chargeback.external_id })}
            </Heading>
            <ChargebackStatusBadge chargeback={chargeback} />
          </div>
          <Text size="small" className="text-ui-fg-subtle">
            {statusView.description}
          </Text>
        </div>
        <div className="flex shrink-0 items-center gap-x-2">
          {proofRequests.length > 0 && (
            <Button
              size="small"
              variant="secondary"
              onClick={() => runCheck(false)}
              isLoading={check.isPending}
            >
              <ArrowPath aria-hidden />
              {t("chargeback.checkNow")}
            </Button>
          )}
          <ActionMenu
            label={t("chargeback.actionsFor", { id: chargeback.external_id })}
            groups={[
              [
                { label: t("chargeback.attachScanIds"), icon: <PaperClip />, onClick: () => setAttachOpen(true) },
                ...(unconfirmed
                  ? [{ label: t("chargeback.resubmit"), icon: <ArrowPath />, onClick: () => void resubmit() }]
                  : []),
              ],
              (["won", "lost", "closed"] as const).map((value) => ({
                label: OUTCOME_TEXT[value].label,
                icon: value === "won" ? <CheckCircle /> : value === "lost" ? <XCircle /> : <XMark />,
                onClick: () => void setOutcome(value),
                disabled: chargeback.status === value || outcome.isPending,
              })),
            ]}
          />
        </div>
      </div>

      <dl className="grid grid-cols-1 gap-x-4 gap-y-3 px-6 py-4 sm:grid-cols-2">
        <Fact label={t("chargeback.facts.amount")}>{formatMoney(chargeback.amount, chargeback.currency_code, i18n.language)}</Fact>
        <Fact label={t("chargeback.facts.dueBy")}>
          <DueDate dueBy={chargeback.due_by} settled={settled} />
        </Fact>
        <Fact label={t("chargeback.facts.reason")}>
          {chargeback.reason || chargeback.reason_code
            ? [chargeback.reason, chargeback.reason_code ? t("chargeback.reasonCode", { code: chargeback.reason_code }) : null]
                .filter(Boolean)
                .join(" · ")
            : "–"}
        </Fact>
        <Fact label={t("chargeback.facts.recorded")}>
          {formatDateTime(chargeback.created_at, i18n.language)}
          {chargeback.source === "processor"
            ? ` · ${t("chargeback.importedFrom", { gateway: gatewayDisplayName(chargeback.dispute_case?.gateway) })}`
            : chargeback.source
              ? ` · ${humanize(chargeback.source)}`
              : ""}
        </Fact>
        {showOrderLink && (
          <Fact label={t("chargeback.facts.order")}>
            <OrderReference chargeback={chargeback} />
          </Fact>
        )}
        {showDetailLink && (
          <Fact label={t("chargeback.facts.dispute")}>
            <Link
              to={`/disputes/${chargeback.id}`}
              className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover inline-flex items-center gap-x-1"
            >
              {t("chargeback.openInDisputes")} <ArrowUpRightOnBox aria-hidden />
            </Link>
          </Fact>
        )}
      </dl>

      {chargeback.dispute_case && (
        <DisputeCasePanel
          chargeback={chargeback}
          disputeCase={chargeback.dispute_case}
          headingLevel={headingLevel === "h1" ? "h2" : "h3"}
        />
      )}

      {proofRequests.length > 0 ? (
        proofRequests.map((pr) => <ProofRequestBlock key={pr.id} proofRequest={pr} sources={sources} />)
      ) : (
        <EmptyState
          title={t("chargeback.noScans.heading")}
          description={t("chargeback.noScans.description")}
          action={
            <Button size="small" variant="secondary" onClick={() => setAttachOpen(true)}>
              {t("chargeback.attachScanIds")}
            </Button>
          }
        />
      )}

      <AttachScansDrawer
        chargebackId={chargeback.id}
        externalId={chargeback.external_id}
        open={attachOpen}
        onOpenChange={setAttachOpen}
      />
    </Container>
  )
}
