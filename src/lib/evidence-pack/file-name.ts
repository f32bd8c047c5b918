/** The pack's media type, for the File Module and the processor's upload. */
export const EVIDENCE_PACK_CONTENT_TYPE = "application/pdf"

/** Processors and file stores accept short, plain names; Worldpay's document ids are file names. */
const MAX_ID_CHARS = 64

/**
 * The pack's file name for a processor case: `servicescan-evidence-<caseId>.pdf`.
 * The case id is reduced to letters, digits, `-`, `_` and `.` (anything else
 * becomes `-`), so the name is safe in a URL path, a header and any file system,
 * and the same case always gives the same name (document ids derive from it).
 */
export function evidencePackFileName(caseId: string): string {
  const safe = caseId
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, MAX_ID_CHARS)
    .replace(/[-.]+$/g, "")
  return `servicescan-evidence-${safe === "" ? "case" : safe}.pdf`
}
