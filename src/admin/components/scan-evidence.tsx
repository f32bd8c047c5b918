import { ArrowDownTray, Photo } from "@medusajs/icons"
import { Badge, Button, Copy, FocusModal, Text } from "@medusajs/ui"
import type { TFunction } from "i18next"
import { useEffect, useState } from "react"
import { Link } from "react-router-dom"
import { groundTruthLabel, shortId } from "../lib/format"
import { scanImageUrl } from "../lib/queries"
import { errorMessage } from "../lib/errors"
import { useServiceScanTranslation } from "../lib/i18n"
import type { ScanEvidence, ScanSource } from "../lib/types"

/** The alt text of a scan's image: what it is and what the service concluded. */
export function scanImageAlt(scanId: string, verdictLabel: string, t: TFunction): string {
  return t("image.alt", { id: scanId, verdict: verdictLabel.toLowerCase() })
}

/** The placeholder's reason until (or unless) the proxy says more. */
const UNAVAILABLE = "image.notAvailable"

/** The proxy served an image, yet the browser could not show it (or not twice in a row). */
const NOT_DISPLAYABLE = "image.notDisplayable"

/**
 * Reloads of a thumbnail after the proxy answered a failed load with an image
 * (the failure was temporary). One: a picture the browser cannot decode would
 * otherwise fail, probe and reload forever.
 */
const MAX_IMAGE_RETRIES = 1

/** `reason`: the proxy's own message, or the key of ours. */
type ImageProbe = { ok: true } | { ok: false; reason: string }

/**
 * Asks the image proxy again after an `<img>` failed, since an `<img>` cannot
 * read an error body. Plain `fetch`, not the SDK: the SDK parses every answer
 * to an `accept: application/json` request as JSON, and the proxy answers 200
 * with the image when the failure was temporary (that JSON parse error would
 * become the "reason"). Only a JSON answer is read; its message is worded by
 * our proxy for a merchant ("This scan was judged fraudulent…").
 */
async function probeScanImage(scanId: string, signal: AbortSignal): Promise<ImageProbe> {
  let response: Response
  try {
    // Resolved against the page, as the SDK does: the backend may be this origin ("/").
    response = await fetch(new URL(scanImageUrl(scanId), window.location.href), {
      // Session auth like the SDK's (lib/sdk.ts): the admin cookie authenticates the proxy.
      credentials: "include",
      headers: { accept: "application/json" },
      // The failed load may have left an error in the HTTP cache; the question is what the proxy says now.
      cache: "no-store",
      signal,
    })
  } catch (error) {
    return { ok: false, reason: errorMessage(error, UNAVAILABLE) }
  }
  const contentType = response.headers.get("content-type") ?? ""
  if (response.ok && /^image\//i.test(contentType)) {
    // Only the answer's kind matters; the browser fetches the picture itself for the retry.
    void response.body?.cancel().catch(() => undefined)
    return { ok: true }
  }
  let message: string | null = null
  if (/[/+]json\b/i.test(contentType)) {
    const body: unknown = await response.json().catch(() => null)
    if (body && typeof body === "object" && "message" in body && typeof body.message === "string" && body.message.trim()) {
      message = body.message
    }
  }
  return { ok: false, reason: message ?? (response.ok ? NOT_DISPLAYABLE : UNAVAILABLE) }
}

/**
 * A thumbnail's source and what to say when it fails. After a failed load the
 * proxy is probed; if it now serves an image, the thumbnail is loaded again
 * from a URL the browser has not seen fail (its memory cache may remember the
 * failure). That URL spells out the inline default, `download=0`, because the
 * route validates its query strictly: a `?retry=` parameter would be a 400.
 */
function useScanImageSource(scanId: string) {
  const { t } = useServiceScanTranslation()
  const [attempt, setAttempt] = useState(0)
  const [failed, setFailed] = useState(false)
  const [reason, setReason] = useState<string | null>(null)
  useEffect(() => {
    if (!failed) {
      return
    }
    const controller = new AbortController()
    void probeScanImage(scanId, controller.signal).then((probe) => {
      if (controller.signal.aborted) {
        return
      }
      if (probe.ok && attempt < MAX_IMAGE_RETRIES) {
        setAttempt(attempt + 1)
        setFailed(false)
      } else {
        setReason(probe.ok ? NOT_DISPLAYABLE : probe.reason)
      }
    })
    return () => controller.abort()
  }, [scanId, failed, attempt])
  const src = attempt === 0 ? scanImageUrl(scanId) : `${scanImageUrl(scanId)}?download=0`
  return {
    src,
    failed,
    // Our two fallbacks are keys; the proxy's message is already worded for the merchant.
    reason: failed ? (reason === null || reason === UNAVAILABLE || reason === NOT_DISPLAYABLE ? t(reason ?? UNAVAILABLE) : reason) : null,
    onError: () => setFailed(true),
  }
}

/** The download link, always through the admin's authenticated image proxy. */
export const ScanImageDownload = ({ scanId, compact = false }: { scanId: string; compact?: boolean }) => {
  const { t } = useServiceScanTranslation()
  return (
    <Button size="small" variant={compact ? "transparent" : "secondary"} asChild>
      <a href={scanImageUrl(scanId, { download: true })} download={`${scanId}.jpg`}>
        <ArrowDownTray aria-hidden />
        <span className={compact ? "sr-only" : undefined}>{t("image.download")}</span>
        {compact && <span className="sr-only">{t("image.downloadOf", { id: scanId })}</span>}
      </a>
    </Button>
  )
}

/**
 * A valid scan's image: a lazy thumbnail that opens large in a modal. The
 * `src` is the admin proxy, same-origin, authenticated by the session cookie;
 * the service's own URL (secret key, attachment) never reaches the page.
 */
export const ScanImage = ({ scanId, verdictLabel }: { scanId: string; verdictLabel: string }) => {
  const { t } = useServiceScanTranslation()
  const [open, setOpen] = useState(false)
  const { src, failed, reason, onError } = useScanImageSource(scanId)
  const alt = scanImageAlt(scanId, verdictLabel, t)

  if (failed) {
    return (
      <div
        className="bg-ui-bg-subtle text-ui-fg-muted flex h-16 w-24 shrink-0 items-center justify-center rounded-md border border-dashed px-1 text-center"
        role="img"
        aria-label={t("image.unavailableLabel", { id: scanId, reason: reason ?? "" })}
        title={reason ?? undefined}
      >
        <Text size="xsmall" leading="compact">
          {t("image.unavailable")}
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
          aria-label={t("image.open", { id: scanId })}
        >
          <img
            src={src}
            alt={alt}
            loading="lazy"
            decoding="async"
            className="h-full w-full object-cover"
            onError={onError}
          />
        </button>
      </FocusModal.Trigger>
      <FocusModal.Content>
        <FocusModal.Header>
          <div className="flex w-full items-center justify-between gap-x-4">
            <FocusModal.Title asChild>
              <Text size="small" leading="compact" weight="plus" className="truncate">
                {t("image.title", { id: scanId })}
              </Text>
            </FocusModal.Title>
            <ScanImageDownload scanId={scanId} />
          </div>
        </FocusModal.Header>
        <FocusModal.Description className="sr-only">
          {t("image.description", { verdict: verdictLabel })}
        </FocusModal.Description>
        <FocusModal.Body className="flex items-center justify-center overflow-auto p-6">
          {open && (
            <img src={src} alt={alt} className="max-h-full max-w-full rounded-lg object-contain" />
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
  /** The earlier order the scan was taken for, when it is not the disputed order's own (a saved card's). */
  source?: ScanSource
}

/** The earlier order a borrowed scan came from, linked: why a scan of another order is evidence here. */
export const ScanSourceNote = ({ source }: { source: ScanSource }) => {
  const { t } = useServiceScanTranslation()
  const order =
    source.order_display_id !== null
      ? t("image.orderNumber", { number: source.order_display_id })
      : t("image.orderId", { id: source.order_id })
  return (
    <Text size="xsmall" leading="compact" className="text-ui-fg-subtle" data-testid="scan-source">
      {t("image.scannedFor")}{" "}
      <Link to={`/orders/${source.order_id}`} className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover">
        {order}
      </Link>
      {t("image.sameCard")}
    </Text>
  )
}

/** One scan: its id, the service's verdict in plain words, and for worthwhile scans the image. */
export const ScanRow = ({ scan, proofComplete, source }: ScanRowProps) => {
  const { t } = useServiceScanTranslation()
  const english = groundTruthLabel(scan.ground_truth, proofComplete)
  // The same verdict, worded in the admin's language (`case.scan`); the English words stay the fallback.
  const wording =
    english.verdict === "valid"
      ? "worth"
      : english.verdict === "invalid"
        ? "fraud"
        : proofComplete
          ? "notReported"
          : "awaiting"
  const view = {
    ...english,
    label: t(`case.scan.${wording}`, { defaultValue: english.label }),
    description: t(`case.scan.${wording}Description`, { defaultValue: english.description }),
  }
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
            <Badge size="2xsmall" color="grey" title={t("case.scan.archivedTitle")}>
              {t("case.scan.archived")}
            </Badge>
          )}
        </div>
        <div className="flex items-center gap-x-1">
          <Text size="small" leading="compact" className="text-ui-fg-subtle truncate font-mono" title={scan.scan_id}>
            {scan.scan_id}
          </Text>
          <Copy content={scan.scan_id} aria-label={t("case.scan.copyId", { id: shortId(scan.scan_id) })} />
        </div>
        <Text size="xsmall" leading="compact" className="text-ui-fg-muted">
          {view.description}
        </Text>
        {source && <ScanSourceNote source={source} />}
        {scan.archive_error && (
          <Text size="xsmall" leading="compact" className="text-ui-fg-error">
            {t("case.scan.notArchived", { error: scan.archive_error })}
          </Text>
        )}
      </div>
      {view.verdict === "valid" && <ScanImageDownload scanId={scan.scan_id} compact />}
    </li>
  )
}
