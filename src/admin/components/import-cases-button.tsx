import { ArrowDownTray } from "@medusajs/icons"
import { Button, toast } from "@medusajs/ui"
import type { TFunction } from "i18next"
import { errorMessage } from "../lib/errors"
import { gatewayDisplayName } from "../lib/format"
import { useServiceScanTranslation } from "../lib/i18n"
import { useImportDisputeCases, useServiceHealth } from "../lib/queries"
import type { CaseImportReport } from "../lib/types"

/** A toast that says what the import found, in the merchant's terms and language (`import`). */
export function describeImport(
  report: CaseImportReport,
  gateway: string,
  t: TFunction
): { tone: "success" | "info" | "warning"; title: string; description: string } {
  const errors = report.errors ?? []
  const parts = [
    report.new_cases ? t("import.newCases", { count: report.new_cases }) : null,
    report.matched ? t("import.matched", { count: report.matched }) : null,
    report.unmatched ? t("import.unmatched", { count: report.unmatched }) : null,
    report.chargebacks_recorded ? t("import.recorded", { count: report.chargebacks_recorded }) : null,
  ].filter(Boolean)
  if (errors.length) {
    return {
      tone: "warning",
      title: t("import.withErrors", { count: errors.length }),
      description: `${errors[0]}${errors.length > 1 ? t("import.moreErrors", { count: errors.length - 1 }) : ""}`,
    }
  }
  if (!report.cases) {
    return { tone: "info", title: t("import.upToDate"), description: t("import.upToDateDescription", { gateway }) }
  }
  return {
    tone: "success",
    title: t("import.imported", { count: report.cases }),
    description: parts.length ? `${parts.join(", ")}.` : t("import.nothingChanged"),
  }
}

/**
 * "Import now": the case import job's run (it reads the processor's
 * chargeback cases and matches them to orders) without waiting for its
 * schedule. The server's own message says why it cannot run (no dispute
 * gateway configured, an import already running).
 */
export const ImportCasesButton = () => {
  const { t } = useServiceScanTranslation()
  const { data: health } = useServiceHealth({ retry: false })
  const name = health?.dispute_gateway?.name
  const run = useImportDisputeCases()
  return (
    <Button
      size="small"
      variant="secondary"
      isLoading={run.isPending}
      onClick={() =>
        run.mutate(undefined, {
          onSuccess: ({ import: report }) => {
            const view = describeImport(report, name ? gatewayDisplayName(name) : t("import.theProcessor"), t)
            toast[view.tone](view.title, { description: view.description })
          },
          onError: (error) => toast.error(t("import.failed"), { description: errorMessage(error) }),
        })
      }
    >
      <ArrowDownTray aria-hidden />
      {t("import.button")}
    </Button>
  )
}
