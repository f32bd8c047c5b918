import { Drawer, Text, Textarea, toast } from "@medusajs/ui"
import { useState, type FormEvent } from "react"
import { errorMessage } from "../lib/errors"
import { useCheckWords, useServiceScanTranslation } from "../lib/i18n"
import { useAttachScanIds } from "../lib/queries"
import { parseScanIds } from "../lib/validation"
import { DrawerFormFooter } from "./drawer-form-footer"
import { Field } from "./field"

type AttachScansDrawerProps = {
  chargebackId: string
  externalId: string
  open: boolean
  onOpenChange: (open: boolean) => void
}

/**
 * Scan ids the order's payments do not carry (a scan made on another device,
 * say). Each is checked as a UUIDv4 here, because one malformed id makes the
 * service refuse the whole proof request; the server checks again.
 */
export const AttachScansDrawer = ({ chargebackId, externalId, open, onOpenChange }: AttachScansDrawerProps) => {
  const { t } = useServiceScanTranslation()
  const say = useCheckWords()
  const [text, setText] = useState("")
  const [error, setError] = useState<string | null>(null)
  const attach = useAttachScanIds(chargebackId)
  const parsed = parseScanIds(text, say)

  const close = (next: boolean) => {
    if (!next) {
      setText("")
      setError(null)
    }
    onOpenChange(next)
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (parsed.error) {
      setError(parsed.error)
      return
    }
    setError(null)
    attach.mutate(parsed.ids, {
      onSuccess: () => {
        toast.success(t("forms.attach.attached", { count: parsed.ids.length }), {
          description: t("forms.attach.attachedDescription"),
        })
        close(false)
      },
      onError: (err) => {
        setError(errorMessage(err))
        toast.error(t("forms.attach.failed"), { description: errorMessage(err) })
      },
    })
  }

  return (
    <Drawer open={open} onOpenChange={close}>
      <Drawer.Content>
        <Drawer.Header>
          <Drawer.Title>{t("forms.attach.title")}</Drawer.Title>
          <Drawer.Description className="sr-only">{t("forms.attach.description", { id: externalId })}</Drawer.Description>
        </Drawer.Header>
        <form onSubmit={onSubmit} noValidate className="flex flex-1 flex-col overflow-hidden">
          <Drawer.Body className="flex flex-1 flex-col gap-y-4 overflow-y-auto">
            <Text size="small" className="text-ui-fg-subtle">
              {t("forms.attach.intro")}
            </Text>
            <Field
              label={t("forms.attach.label")}
              error={error ?? undefined}
              hint={t("forms.attach.hint")}
            >
              <Textarea
                value={text}
                rows={6}
                className="font-mono"
                spellCheck={false}
                placeholder="9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61"
                onChange={(event) => {
                  setText(event.target.value)
                  setError(null)
                }}
                onBlur={() => {
                  // Say what is wrong once the admin leaves the field, not at every keystroke.
                  if (text.trim() && parsed.invalid.length) {
                    setError(parsed.error)
                  }
                }}
              />
            </Field>
            {parsed.ids.length > 0 && !error && (
              <Text size="small" className="text-ui-fg-subtle" aria-live="polite">
                {t("forms.attach.willSend", { count: parsed.ids.length })}
              </Text>
            )}
          </Drawer.Body>
          <DrawerFormFooter submitLabel={t("forms.attach.submit")} isPending={attach.isPending} />
        </form>
      </Drawer.Content>
    </Drawer>
  )
}
