import { Drawer, Input, Text, toast } from "@medusajs/ui"
import { useState, type FormEvent } from "react"
import { errorMessage } from "../lib/errors"
import { currencyDecimals } from "../lib/format"
import { useCheckWords, useServiceScanTranslation } from "../lib/i18n"
import { useRecordChargeback } from "../lib/queries"
import type { Chargeback } from "../lib/types"
import {
  endOfLocalDay,
  normalizeAmount,
  validateRecordChargeback,
  type FormErrors,
  type RecordChargebackForm,
} from "../lib/validation"
import { DrawerFormFooter } from "./drawer-form-footer"
import { Field } from "./field"

type RecordChargebackDrawerProps = {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** Set on the order page: the order is known and its currency is fixed. */
  order?: { id: string; currency_code: string; total?: number | null }
  onRecorded?: (chargeback: Chargeback) => void
}

function initialForm(order: RecordChargebackDrawerProps["order"]): RecordChargebackForm {
  return {
    order_id: order?.id ?? "",
    external_id: "",
    // Most chargebacks dispute the whole order; the merchant edits it when not.
    amount:
      order?.total != null && order.currency_code
        ? Number(order.total).toFixed(currencyDecimals(order.currency_code))
        : "",
    currency_code: order?.currency_code?.toUpperCase() ?? "",
    reason: "",
    reason_code: "",
    due_by: "",
  }
}

/**
 * Records a chargeback the processor notified by e-mail or in its portal. The
 * backend then sends the order's card scans to ServiceScan on its own; this
 * form only carries what the processor said.
 */
export const RecordChargebackDrawer = ({ open, onOpenChange, order, onRecorded }: RecordChargebackDrawerProps) => {
  const { t } = useServiceScanTranslation()
  const say = useCheckWords()
  const [form, setForm] = useState<RecordChargebackForm>(() => initialForm(order))
  const [errors, setErrors] = useState<FormErrors<RecordChargebackForm>>({})
  const [serverError, setServerError] = useState<string | null>(null)
  const record = useRecordChargeback()

  const set = (field: keyof RecordChargebackForm) => (event: { target: { value: string } }) => {
    const value = event.target.value
    setForm((previous) => ({ ...previous, [field]: value }))
    // Clear a field's error as soon as it is edited; it is re-checked on submit.
    setErrors((previous) => ({ ...previous, [field]: undefined }))
  }

  const reset = () => {
    setForm(initialForm(order))
    setErrors({})
    setServerError(null)
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    const found = validateRecordChargeback(form, say)
    setErrors(found)
    setServerError(null)
    if (Object.values(found).some(Boolean)) {
      return
    }
    record.mutate(
      {
        order_id: form.order_id.trim(),
        external_id: form.external_id.trim(),
        amount: normalizeAmount(form.amount),
        currency_code: form.currency_code.trim().toLowerCase(),
        reason: form.reason.trim() || undefined,
        reason_code: form.reason_code.trim() || undefined,
        due_by: form.due_by ? endOfLocalDay(form.due_by) : undefined,
      },
      {
        onSuccess: ({ chargeback, created }) => {
          if (created) {
            toast.success(t("forms.record.recorded"), { description: t("forms.record.recordedDescription") })
          } else {
            // Recording is idempotent by the processor's dispute id.
            toast.info(t("forms.record.already"), {
              description: t("forms.record.alreadyDescription", { id: chargeback.external_id }),
            })
          }
          onRecorded?.(chargeback)
          reset()
          onOpenChange(false)
        },
        onError: (error) => {
          setServerError(errorMessage(error))
          toast.error(t("forms.record.failed"), { description: errorMessage(error) })
        },
      }
    )
  }

  return (
    <Drawer
      open={open}
      onOpenChange={(next) => {
        if (!next) {
          reset()
        }
        onOpenChange(next)
      }}
    >
      <Drawer.Content>
        <Drawer.Header>
          <Drawer.Title>{t("forms.record.title")}</Drawer.Title>
          <Drawer.Description className="sr-only">
            {t("forms.record.description")}
          </Drawer.Description>
        </Drawer.Header>
        <form onSubmit={onSubmit} noValidate className="flex flex-1 flex-col overflow-hidden">
          <Drawer.Body className="flex flex-1 flex-col gap-y-4 overflow-y-auto">
            <Text size="small" className="text-ui-fg-subtle">
              {t("forms.record.intro")}
            </Text>
            {!order && (
              <Field label={t("forms.orderId")} error={errors.order_id} hint={t("forms.record.orderIdHint")}>
                <Input value={form.order_id} onChange={set("order_id")} autoComplete="off" />
              </Field>
            )}
            <Field
              label={t("forms.record.externalId")}
              error={errors.external_id}
              hint={t("forms.record.externalIdHint")}
            >
              <Input value={form.external_id} onChange={set("external_id")} autoComplete="off" />
            </Field>
            <div className="grid grid-cols-[1fr_7rem] gap-x-3">
              <Field label={t("forms.record.amount")} error={errors.amount}>
                <Input value={form.amount} onChange={set("amount")} inputMode="decimal" autoComplete="off" />
              </Field>
              <Field label={t("forms.record.currency")} error={errors.currency_code}>
                <Input
                  value={form.currency_code}
                  onChange={set("currency_code")}
                  readOnly={Boolean(order)}
                  maxLength={3}
                  autoComplete="off"
                  className="uppercase"
                />
              </Field>
            </div>
            <Field label={t("forms.record.reason")} optional error={errors.reason}>
              <Input value={form.reason} onChange={set("reason")} placeholder={t("forms.record.reasonPlaceholder")} />
            </Field>
            <Field label={t("forms.record.reasonCode")} optional error={errors.reason_code}>
              <Input value={form.reason_code} onChange={set("reason_code")} placeholder={t("forms.record.reasonCodePlaceholder")} />
            </Field>
            <Field
              label={t("forms.record.dueBy")}
              optional
              error={errors.due_by}
              hint={t("forms.record.dueByHint")}
            >
              <Input type="date" value={form.due_by} onChange={set("due_by")} />
            </Field>
            {serverError && (
              <Text size="small" className="text-ui-fg-error" role="alert">
                {serverError}
              </Text>
            )}
          </Drawer.Body>
          <DrawerFormFooter submitLabel={t("forms.record.submit")} isPending={record.isPending} />
        </form>
      </Drawer.Content>
    </Drawer>
  )
}
