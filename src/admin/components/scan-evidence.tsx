import { ArrowDownTray, Photo } from "@medusajs/icons"
import { Badge, Button, Copy, FocusModal, Text } from "@medusajs/ui"
import { useEffect, useState } from "react"
import { groundTruthLabel, shortId } from "../lib/format"
import { scanImageUrl } from "../lib/queries"
import { sdk } from "../lib/sdk"
import { errorMessage } from "../lib/errors"
import type { ScanEvidence } from "../lib/types"

/** The alt text of a scan's image: what it is and what the service concluded. */
export function scanImageAlt(scanId: string, verdictLabel: string): string {
  return `Card scan ${scanId} (${verdictLabel.toLowerCase()})`
}

/**
 * Why the proxy would not give an image. An `<img>` cannot read an error body,
 * so after a failed load we ask once for the JSON error, whose message our
 * proxy words for a merchant ("This scan was judged fraudulent…").
 */
function useImageFailureReason(scanId: string, failed: boolean): string | null {
  const [reason, setReason] = useState<string | null>(null)
  useEffect(() => {
    if (!failed) {
      return
    }
    let cancelled = false
    sdk.client
      .fetch<unknown>(`/admin/servicescan/scans/${encodeURIComponent(scanId)}/image`, {
        headers: { accept: "application/json" },
      })
      .then(() => !cancelled && setReason("The image could not be displayed."))
      .catch((error: unknown) => !cancelled && setReason(errorMessage(error, "The image is not available.")))
    return () => {
      cancelled = true
    }
  }, [scanId, failed])
  return failed ? (reason ?? "The image is not available.") : null
}

/** The download link, always through the admin's authenticated image proxy. */
export const ScanImageDownload = ({ scanId, compact = false }: { scanId: string; compact?: boolean }) => (
  <Button size="small" variant={compact ? "transparent" : "secondary"} asChild>
    <a href={scanImageUrl(scanId, { download: true })} download={`${scanId}.jpg`}>
      <ArrowDownTray aria-hidden />
      <span className={compact ? "sr-only" : undefined}>Download image</span>
      {compact && <span className="sr-only"> of scan {scanId}</span>}
    </a>
  </Button>
)

/**
 * A valid scan's image: a lazy thumbnail that opens large in a modal. The
 * `src` is the admin proxy, same-origin, authenticated by the session cookie;
 * the service's own URL (secret key, attachment) never reaches the page.
 */
export const ScanImage = ({ scanId, verdictLabel }: { scanId: string; verdictLabel: string }) => {
  const [open, setOpen] = useState(false)
  const [failed, setFailed] = useState(false)
  const reason = useImageFailureReason(scanId, failed)
  const alt = scanImageAlt(scanId, verdictLabel)

  if (failed) {
    return (
      <div
        className="bg-ui-bg-subtle text-ui-fg-muted flex h-16 w-24 shrink-0 items-center justify-center rounded-md border border-dashed px-1 text-center"
        role="img"
        aria-label={`Image of scan ${scanId} unavailable: ${reason ?? ""}`}
        title={reason ?? undefined}
      >
        <Text size="xsmall" leading="compact">
          Image unavailable
        </Text>
      </div>
    )
  }

  return (
    <FocusModal open={open} onOpenChange={setOpen}>
      <FocusModal.Trigger asChild>
        <button
          type="button"
          className="bg-ui-bg-subtle shadow-borders-base focus-visible:shadow-borders-focus h-16 w-24 shrink-0 overflow-hidden rounded-md outline-none transition-fg"
          aria-label={`Open a larger view of the image of scan ${scanId}`}
        >
          <img
            src={scanImageUrl(scanId)}
            alt={alt}
            loading="lazy"
            decoding="async"
            className="h-full w-full object-cover"
            onError={() => setFailed(true)}
          />
        </button>
      </FocusModal.Trigger>
      <FocusModal.Content>
        <FocusModal.Header>
          <div className="flex w-full items-center justify-between gap-x-4">
            <FocusModal.Title asChild>
              <Text size="small" leading="compact" weight="plus" className="truncate">
                Scan {scanId}
              </Text>
            </FocusModal.Title>
            <ScanImageDownload scanId={scanId} />
          </div>
        </FocusModal.Header>
        <FocusModal.Description className="sr-only">
          The card scan's image, as evidence for the chargeback dispute. {verdictLabel}.
        </FocusModal.Description>
        <FocusModal.Body className="flex items-center justify-center overflow-auto p-6">
          {open && (
            <img src={scanImageUrl(scanId)} alt={alt} className="max-h-full max-w-full rounded-lg object-contain" />
          )}
        </FocusModal.Body>
      </FocusModal.Content>
    </FocusModal>
  )
}

type ScanRowProps = {
  scan: ScanEvidence
  /** Whether the proof request completed; an unreported scan then means "no verdict", not "waiting". */
  proofComplete: boolean
}

/** One scan: its id, the service's verdict in plain words, and for worthwhile scans the image. */
export const ScanRow = ({ scan, proofComplete }: ScanRowProps) => {
  const view = groundTruthLabel(scan.ground_truth, proofComplete)
  const archived = Boolean(scan.archived ?? scan.archived_at)
  return (
    <li className="flex items-center gap-x-4 py-3" data-testid="scan-row">
      {view.verdict === "valid" ? (
        <ScanImage scanId={scan.scan_id} verdictLabel={view.label} />
      ) : (
        <div
          className="bg-ui-bg-subtle text-ui-fg-muted flex h-16 w-24 shrink-0 items-center justify-center rounded-md border border-dashed"
          aria-hidden
        >
          <Photo />
        </div>
      )}
      <div className="flex min-w-0 flex-1 flex-col gap-y-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <Badge size="2xsmall" color={view.color}>
            {view.label}
          </Badge>
          {archived && (
            <Badge size="2xsmall" color="grey" title="A copy is kept in the store's file storage">
              Archived
            </Badge>
          )}
        </div>
        <div className="flex items-center gap-x-1">
          <Text size="small" leading="compact" className="text-ui-fg-subtle truncate font-mono" title={scan.scan_id}>
            {scan.scan_id}
          </Text>
          <Copy content={scan.scan_id} aria-label={`Copy scan id ${shortId(scan.scan_id)}`} />
        </div>
        <Text size="xsmall" leading="compact" className="text-ui-fg-muted">
          {view.description}
        </Text>
        {scan.archive_error && (
          <Text size="xsmall" leading="compact" className="text-ui-fg-error">
            Not archived: {scan.archive_error}
          </Text>
        )}
      </div>
      {view.verdict === "valid" && <ScanImageDownload scanId={scan.scan_id} compact />}
    </li>
  )
}
