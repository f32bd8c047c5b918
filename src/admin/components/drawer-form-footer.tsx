import { Button, Drawer } from "@medusajs/ui"
import { useServiceScanTranslation } from "../lib/i18n"

type DrawerFormFooterProps = {
  /** What submitting does, in the admin's words ("Record chargeback"). */
  submitLabel: string
  /** The mutation is in flight: the button spins and cannot be pressed twice. */
  isPending: boolean
}

/** Cancel and submit for a drawer that holds a form; render it inside the `<form>`. */
export function DrawerFormFooter({ submitLabel, isPending }: DrawerFormFooterProps) {
  const { t } = useServiceScanTranslation()
  return (
    <Drawer.Footer>
      <Drawer.Close asChild>
        <Button size="small" variant="secondary" type="button">
          {t("forms.cancel")}
        </Button>
      </Drawer.Close>
      <Button size="small" type="submit" isLoading={isPending}>
        {submitLabel}
      </Button>
    </Drawer.Footer>
  )
}
