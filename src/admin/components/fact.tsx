import { Text } from "@medusajs/ui"
import type { ReactNode } from "react"

/** One labelled value of a description list (`<dl>`): the label small and muted, the value below. */
export const Fact = ({ label, children }: { label: string; children: ReactNode }) => (
  <div className="flex flex-col gap-y-0.5">
    <dt>
      <Text size="xsmall" leading="compact" className="text-ui-fg-muted">
        {label}
      </Text>
    </dt>
    <dd>
      <Text as="div" size="small" leading="compact">
        {children}
      </Text>
    </dd>
  </div>
)
