import { ExclamationCircle } from "@medusajs/icons"
import { Button, Skeleton, Text } from "@medusajs/ui"
import type { ReactNode } from "react"
import { errorMessage } from "../lib/errors"
import { useServiceScanTranslation } from "../lib/i18n"

/**
 * A failed load, with the server's own message (our routes word it for a
 * merchant) and a way to try again. `role="alert"` so screen readers hear it.
 */
export const ErrorState = ({
  error,
  title,
  onRetry,
}: {
  error: unknown
  title?: string
  onRetry?: () => void
}) => {
  const { t } = useServiceScanTranslation()
  return (
  <div role="alert" className="flex flex-col items-center gap-y-3 px-6 py-8 text-center">
    <ExclamationCircle className="text-ui-fg-error" aria-hidden />
    <div className="flex flex-col gap-y-1">
      <Text size="small" leading="compact" weight="plus">
        {title ?? t("common.couldNotLoad")}
      </Text>
      <Text size="small" className="text-ui-fg-subtle">
        {errorMessage(error)}
      </Text>
    </div>
    {onRetry && (
      <Button size="small" variant="secondary" onClick={onRetry}>
        {t("common.tryAgain")}
      </Button>
    )}
  </div>
  )
}

export const EmptyState = ({
  title,
  description,
  action,
}: {
  title: string
  description: ReactNode
  action?: ReactNode
}) => (
  <div className="flex flex-col items-center gap-y-3 px-6 py-8 text-center">
    <div className="flex max-w-md flex-col gap-y-1">
      <Text size="small" leading="compact" weight="plus">
        {title}
      </Text>
      <Text size="small" className="text-ui-fg-subtle">
        {description}
      </Text>
    </div>
    {action}
  </div>
)

/** Placeholder rows while a section loads, shaped like the content to avoid a jump. */
export const SectionSkeleton = ({ rows = 3, label }: { rows?: number; label?: string }) => {
  const { t } = useServiceScanTranslation()
  return (
    <div className="flex flex-col gap-y-3 px-6 py-4" aria-busy="true" aria-label={label ?? t("common.loading")} role="status">
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} className="h-5 w-full" />
      ))}
    </div>
  )
}
