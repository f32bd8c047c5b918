import { Drawer, Text, Textarea, toast } from "@medusajs/ui"
import { useState, type FormEvent } from "react"
import { errorMessage } from "../lib/errors"
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
  const [text, setText] = useState("")
  const [error, setError] = useState<string | null>(null)
  const attach = useAttachScanIds(chargebackId)
  const parsed = parseScanIds(text)

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
        toast.success(parsed.ids.length === 1 ? "Scan id attached" : `${parsed.ids.length} scan ids attached`, {
          description: "They are on their way to ServiceScan; the verdict appears here when it is ready.",
        })
        close(false)
      },
      onError: (err) => {
        setError(errorMessage(err))
        toast.error("Could not attach the scan ids", { description: errorMessage(err) })
      },
    })
  }

  return (
    <Drawer open={open} onOpenChange={close}>
      <Drawer.Content>
        <Drawer.Header>
          <Drawer.Title>Attach scan ids</Drawer.Title>
          <Drawer.Description className="sr-only">Add card scan ids to chargeback {externalId}.</Drawer.Description>
        </Drawer.Header>
        <form onSubmit={onSubmit} noValidate className="flex flex-1 flex-col overflow-hidden">
          <Drawer.Body className="flex flex-1 flex-col gap-y-4 overflow-y-auto">
            <Text size="small" className="text-ui-fg-subtle">
              Scan ids of the order's payments are sent automatically. Add others here, for example a scan made on
              another device. They are sent to ServiceScan as a new proof request.
            </Text>
            <Field
              label="Scan ids"
              error={error ?? undefined}
              hint="One per line, or separated by commas. Each is a UUIDv4."
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
                {parsed.ids.length === 1 ? "1 scan id" : `${parsed.ids.length} scan ids`} will be sent.
              </Text>
            )}
          </Drawer.Body>
          <DrawerFormFooter submitLabel="Attach and send" isPending={attach.isPending} />
        </form>
      </Drawer.Content>
    </Drawer>
  )
}
