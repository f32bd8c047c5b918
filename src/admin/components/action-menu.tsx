import { EllipsisHorizontal } from "@medusajs/icons"
import { DropdownMenu, IconButton } from "@medusajs/ui"
import type { ReactNode } from "react"

export type Action = {
  label: string
  icon?: ReactNode
  onClick: () => void
  disabled?: boolean
}

/**
 * The "…" menu Medusa's own sections use for secondary actions. Radix makes
 * it keyboard-operable (Enter/Space to open, arrows to move, Esc to close).
 */
export const ActionMenu = ({ groups, label }: { groups: Action[][]; label: string }) => (
  <DropdownMenu>
    <DropdownMenu.Trigger asChild>
      <IconButton size="small" variant="transparent" aria-label={label}>
        <EllipsisHorizontal />
      </IconButton>
    </DropdownMenu.Trigger>
    <DropdownMenu.Content align="end">
      {groups
        .filter((group) => group.length > 0)
        .map((group, index, all) => (
          <div key={index}>
            <DropdownMenu.Group>
              {group.map((action) => (
                <DropdownMenu.Item
                  key={action.label}
                  disabled={action.disabled}
                  onClick={(event) => {
                    event.stopPropagation()
                    action.onClick()
                  }}
                  className="[&_svg]:text-ui-fg-subtle flex items-center gap-x-2"
                >
                  {action.icon}
                  <span>{action.label}</span>
                </DropdownMenu.Item>
              ))}
            </DropdownMenu.Group>
            {index < all.length - 1 && <DropdownMenu.Separator />}
          </div>
        ))}
    </DropdownMenu.Content>
  </DropdownMenu>
)
