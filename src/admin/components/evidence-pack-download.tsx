import { ArrowDownTray, Spinner } from "@medusajs/icons"
import { Button, toast } from "@medusajs/ui"
import { useState, type MouseEvent } from "react"
import { errorMessage } from "../lib/errors"
import { useServiceScanTranslation } from "../lib/i18n"
import { evidencePackUrl } from "../lib/queries"

/** The file name from `Content-Disposition: attachment; filename="…"`, if any. */
export function attachmentName(disposition: string | null): string | null {
  const match = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition) : null
  if (!match) {
    return null
  }
  try {
    return decodeURIComponent(match[1])
  } catch {
    return match[1]
  }
}

/**
 * Fetches the pack, as the link would, but first: the PDF is made on demand
 * (a few seconds with large images), and a link that fails downloads the
 * error's JSON as a file, where the merchant needs its message. Session
 * cookie, no key: the same authentication as the image proxy. Not the SDK:
 * it parses every answer as JSON.
 */
async function fetchPack(chargebackId: string, fallbackName: string): Promise<void> {
  const response = await fetch(new URL(evidencePackUrl(chargebackId), window.location.href), {
    credentials: "include",
    headers: { accept: "application/pdf, application/json" },
  })
  const type = response.headers.get("content-type") ?? ""
  if (!response.ok || !/application\/pdf/i.test(type)) {
    let message: string | null = null
    if (/json/i.test(type)) {
      const body: unknown = await response.json().catch(() => null)
      if (body && typeof body === "object" && "message" in body && typeof body.message === "string" && body.message.trim()) {
        message = body.message
      }
    }
    throw new Error(message ?? `The evidence pack could not be made (HTTP ${response.status}).`)
  }
  const blob = await response.blob()
  const url = URL.createObjectURL(blob)
  const link = document.createElement("a")
  link.href = url
  link.download = attachmentName(response.headers.get("content-disposition")) ?? fallbackName
  document.body.appendChild(link)
  link.click()
  link.remove()
  // After the click has handed the blob to the download.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/**
 * "Download evidence pack": one PDF with the order, the payment, the proof
 * request's verdicts and the valid scans' images, the document the processor
 * receives when the evidence is sent. A real link (it can be opened or copied),
 * with a click that reports failures in words.
 */
export const EvidencePackDownload = ({ chargebackId, fileName }: { chargebackId: string; fileName: string }) => {
  const { t } = useServiceScanTranslation()
  const [pending, setPending] = useState(false)
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    // A modified click (new tab, save as) is the browser's business.
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) {
      return
    }
    event.preventDefault()
    if (pending) {
      return
    }
    setPending(true)
    fetchPack(chargebackId, fileName)
      .then(() => toast.success(t("case.pack.downloaded"), { description: fileName }))
      .catch((error: unknown) =>
        toast.error(t("case.pack.downloadFailed"), {
          description: errorMessage(error, "The evidence pack could not be downloaded."),
        })
      )
      .finally(() => setPending(false))
  }
  return (
    // Not `isLoading`: with `asChild` it would wrap the link in a span that takes the link's props.
    <Button size="small" variant="secondary" asChild>
      <a href={evidencePackUrl(chargebackId)} download={fileName} onClick={onClick} aria-busy={pending || undefined}>
        {pending ? <Spinner className="animate-spin" aria-hidden /> : <ArrowDownTray aria-hidden />}
        {t("case.pack.download")}
      </a>
    </Button>
  )
}
