import { Drawer, Input, Text, toast } from "@medusajs/ui"
import { useRef, useState, type FormEvent } from "react"
import { errorMessage } from "../lib/errors"
import { formatMoney, gatewayDisplayName } from "../lib/format"
import { useCheckWords, useServiceScanTranslation } from "../lib/i18n"
import { useAssignDisputeCase } from "../lib/queries"
import type { DisputeCase } from "../lib/types"
import { validateOrderId } from "../lib/validation"
import { DrawerFormFooter } from "./drawer-form-footer"
import { Fact } from "./fact"
import { Field } from "./field"

type AssignCaseDrawerProps = {
  /** The case being assigned; the drawer is closed when null. */
  disputeCase: DisputeCase | null
  onOpenChange: (open: boolean) => void
}

/**
 * Assigns a case that matched no payment to the order it belongs to (a phone
 * order, a payment taken outside the storefront). The backend then records
 * the chargeback on that order, as an imported case would be, and evidence
 * collection starts.
 */
export const AssignCaseDrawer = ({ disputeCase: current, onOpenChange }: AssignCaseDrawerProps) => {
  const { t, i18n } = useServiceScanTranslation()
  const say = useCheckWords()
  // The last case shown stays on screen while the drawer slides out.
  const last = useRef<DisputeCase | null>(null)
  if (current) {
    last.current = current
  }
  const disputeCase = current ?? last.current
  const [orderId, setOrderId] = useState("")
  const [error, setError] = useState<string | null>(null)
  const assign = useAssignDisputeCase(disputeCase?.id ?? "")

  const close = (open: boolean) => {
    if (!open) {
      setOrderId("")
      setError(null)
      assign.reset()
    }
    onOpenChange(open)
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    const problem = validateOrderId(orderId, say)
    setError(problem)
    if (problem || !disputeCase) {
      return
    }
    const id = orderId.trim()
    assign.mutate(id, {
      onSuccess: () => {
        toast.success(t("forms.assign.assigned", { id: disputeCase.case_id }), {
          description: t("forms.assign.assignedDescription", { order: id }),
        })
        close(false)
      },
      onError: (err) => {
        setError(errorMessage(err))
        toast.error(t("forms.assign.failed"), { description: errorMessage(err) })
      },
    })
  }

  const gateway = disputeCase?.gateway ? gatewayDisplayName(disputeCase.gateway) : t("import.theProcessor")
  return (
    <Drawer open={Boolean(current)} onOpenChange={close}>
      <Drawer.Content>
        <Drawer.Header>
          <Drawer.Title>{t("forms.assign.title")}</Drawer.Title>
          <Drawer.Description className="sr-only">
            {t("forms.assign.description", { gateway, id: disputeCase?.case_id ?? "" })}
          </Drawer.Description>
        </Drawer.Header>
        <form onSubmit={onSubmit} noValidate className="flex flex-1 flex-col overflow-hidden">
          <Drawer.Body className="flex flex-1 flex-col gap-y-4 overflow-y-auto">
            {disputeCase && (
              <>
                <Text size="small" className="text-ui-fg-subtle">
                  {t("forms.assign.intro", { gateway, id: disputeCase.case_id })}
                </Text>
                <dl className="grid grid-cols-2 gap-x-4 gap-y-3">
                  <Fact label={t("forms.assign.amount")}>
                    {formatMoney(disputeCase.amount, disputeCase.currency_code, i18n.language)}
                  </Fact>
                  <Fact label={t("forms.assign.reason")}>
                    {[disputeCase.reason_code, disputeCase.reason_description].filter(Boolean).join(" · ") || "–"}
                  </Fact>
                  <Fact label={t("forms.assign.transaction")}>
                    <span className="font-mono">{disputeCase.processor_transaction_id ?? "–"}</span>
                  </Fact>
                  <Fact label={t("forms.assign.orderReference")}>
                    <span className="font-mono">{disputeCase.processor_order_id ?? "–"}</span>
                  </Fact>
                </dl>
              </>
            )}
            <Field
              label={t("forms.orderId")}
              error={error ?? undefined}
              hint={t("forms.assign.orderIdHint")}
            >
              <Input
                value={orderId}
                autoComplete="off"
                spellCheck={false}
                className="font-mono"
                onChange={(event) => {
                  setOrderId(event.target.value)
                  setError(null)
                }}
              />
            </Field>
          </Drawer.Body>
          <DrawerFormFooter submitLabel={t("forms.assign.submit")} isPending={assign.isPending} />
        </form>
      </Drawer.Content>
    </Drawer>
  )
}
