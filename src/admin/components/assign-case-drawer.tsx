import { Drawer, Input, Text, toast } from "@medusajs/ui"
import { useRef, useState, type FormEvent } from "react"
import { errorMessage } from "../lib/errors"
import { formatMoney, gatewayDisplayName } from "../lib/format"
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
    const problem = validateOrderId(orderId)
    setError(problem)
    if (problem || !disputeCase) {
      return
    }
    const id = orderId.trim()
    assign.mutate(id, {
      onSuccess: () => {
        toast.success(`Case ${disputeCase.case_id} assigned`, {
          description: `Its chargeback is recorded on order ${id}, and the order's card scans go to ServiceScan.`,
        })
        close(false)
      },
      onError: (err) => {
        setError(errorMessage(err))
        toast.error("Could not assign the case", { description: errorMessage(err) })
      },
    })
  }

  const gateway = gatewayDisplayName(disputeCase?.gateway)
  return (
    <Drawer open={Boolean(current)} onOpenChange={close}>
      <Drawer.Content>
        <Drawer.Header>
          <Drawer.Title>Assign to order</Drawer.Title>
          <Drawer.Description className="sr-only">
            Assign {gateway} case {disputeCase?.case_id} to the order it belongs to.
          </Drawer.Description>
        </Drawer.Header>
        <form onSubmit={onSubmit} noValidate className="flex flex-1 flex-col overflow-hidden">
          <Drawer.Body className="flex flex-1 flex-col gap-y-4 overflow-y-auto">
            {disputeCase && (
              <>
                <Text size="small" className="text-ui-fg-subtle">
                  {gateway} case {disputeCase.case_id} matched no payment of this store. Enter the order it belongs to: its
                  chargeback is recorded there, and the order's card scans are sent to ServiceScan as evidence.
                </Text>
                <dl className="grid grid-cols-2 gap-x-4 gap-y-3">
                  <Fact label="Amount">{formatMoney(disputeCase.amount, disputeCase.currency_code)}</Fact>
                  <Fact label="Reason">
                    {[disputeCase.reason_code, disputeCase.reason_description].filter(Boolean).join(" · ") || "–"}
                  </Fact>
                  <Fact label="Processor transaction">
                    <span className="font-mono">{disputeCase.processor_transaction_id ?? "–"}</span>
                  </Fact>
                  <Fact label="Order reference at the processor">
                    <span className="font-mono">{disputeCase.processor_order_id ?? "–"}</span>
                  </Fact>
                </dl>
              </>
            )}
            <Field
              label="Order ID"
              error={error ?? undefined}
              hint="The Medusa order id, e.g. order_01J…, from the order's page address."
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
          <DrawerFormFooter submitLabel="Assign to order" isPending={assign.isPending} />
        </form>
      </Drawer.Content>
    </Drawer>
  )
}
