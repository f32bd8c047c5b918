import { Hint, Label, Text } from "@medusajs/ui"
import { cloneElement, isValidElement, useId, type ReactElement } from "react"
import { useServiceScanTranslation } from "../lib/i18n"

type FieldProps = {
  label: string
  /** The control; it receives id, aria-invalid and aria-describedby. */
  children: ReactElement<Record<string, unknown>>
  error?: string
  hint?: string
  optional?: boolean
}

/**
 * A labelled form control with its hint and error, wired for assistive tech:
 * the label names the control, the error is announced and linked to it.
 */
export const Field = ({ label, children, error, hint, optional = false }: FieldProps) => {
  const { t } = useServiceScanTranslation()
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const describedBy = error ? errorId : hint ? hintId : undefined
  const control = isValidElement(children)
    ? cloneElement(children, { id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy })
    : children
  return (
    <div className="flex flex-col gap-y-2">
      <Label htmlFor={id} size="small" weight="plus">
        {label}
        {optional && (
          <Text as="span" size="small" className="text-ui-fg-muted font-normal">
            {" "}
            {t("forms.optional")}
          </Text>
        )}
      </Label>
      {control}
      {hint && !error && (
        <Hint id={hintId} className="text-ui-fg-subtle">
          {hint}
        </Hint>
      )}
      {error && (
        <Hint id={errorId} variant="error" role="alert">
          {error}
        </Hint>
      )}
    </div>
  )
}
