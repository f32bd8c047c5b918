import { ArrowDownTray } from "@medusajs/icons"
import { Button, toast } from "@medusajs/ui"
import { errorMessage } from "../lib/errors"
import { gatewayDisplayName } from "../lib/format"
import { useImportDisputeCases, useServiceHealth } from "../lib/queries"
import type { CaseImportReport } from "../lib/types"

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/** A toast that says what the import found, in the merchant's terms. */
export function describeImport(
  report: CaseImportReport,
  gateway: string
): { tone: "success" | "info" | "warning"; title: string; description: string } {
  const errors = report.errors ?? []
  const parts = [
    report.new_cases ? `${report.new_cases} new` : null,
    report.matched ? `${report.matched} matched to orders` : null,
    report.unmatched ? `${report.unmatched} unmatched (see Unmatched cases)` : null,
    report.chargebacks_recorded ? `${plural(report.chargebacks_recorded, "chargeback")} recorded` : null,
  ].filter(Boolean)
  if (errors.length) {
    return {
      tone: "warning",
      title: `Imported with ${plural(errors.length, "error")}`,
      description: `${errors[0]}${errors.length > 1 ? ` (and ${errors.length - 1} more; see the server log)` : ""}`,
    }
  }
  if (!report.cases) {
    return { tone: "info", title: "Up to date", description: `${gateway} reported no case changes since the last import.` }
  }
  return {
    tone: "success",
    title: `Imported ${plural(report.cases, "case")}`,
    description: parts.length ? `${parts.join(", ")}.` : "Nothing changed since the last import.",
  }
}

/**
 * "Import now": the case import job's run (it reads the processor's
 * chargeback cases and matches them to orders) without waiting for its
 * schedule. The server's own message says why it cannot run (no dispute
 * gateway configured, an import already running).
 */
export const ImportCasesButton = () => {
  const { data: health } = useServiceHealth({ retry: false })
  const gateway = gatewayDisplayName(health?.dispute_gateway?.name)
  const run = useImportDisputeCases()
  return (
    <Button
      size="small"
      variant="secondary"
      isLoading={run.isPending}
      onClick={() =>
        run.mutate(undefined, {
          onSuccess: ({ import: report }) => {
            const view = describeImport(report, gateway === "the processor" ? "The processor" : gateway)
            toast[view.tone](view.title, { description: view.description })
          },
          onError: (error) => toast.error("Import failed", { description: errorMessage(error) }),
        })
      }
    >
      <ArrowDownTray aria-hidden />
      Import now
    </Button>
  )
}
