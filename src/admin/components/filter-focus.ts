/** The options of a DataTable filter just added: its popover's search box, or its option list. */
const NEW_FILTER_FIELD =
  "[data-radix-popper-content-wrapper] input:not([type='hidden']), [data-radix-popper-content-wrapper] [role='list'][tabindex='0']"

/** How long after a filter is added the menu's focus return still counts as its own. */
const RETURN_WINDOW_MS = 1_000

/**
 * Puts the keyboard in a filter's options once it is added from
 * `@medusajs/ui`'s DataTable.FilterMenu. The library's filter popover focuses
 * its search box when it opens, but the menu the filter was picked from closes
 * after it (its exit animation) and hands focus back to its trigger: a keyboard
 * user ends up on the funnel button, with the options open out of reach. So
 * the next time focus returns to that trigger, it moves on into the options.
 *
 * The multiselect's options also nest a decorative checkbox inside each option
 * button; both are tab stops, and Space on the inner one changes nothing. The
 * inner one leaves the tab order (it stays in the accessibility tree), so each
 * option is one Tab away.
 */
export function focusNewFilter(trigger: HTMLElement | null): void {
  if (!trigger) {
    return
  }
  const until = Date.now() + RETURN_WINDOW_MS
  // The menu hands the focus back before or after the popover renders: either way it ends in the options.
  const moveIn = () => whenOptionsField(until, (field) => field.focus())
  trigger.addEventListener("focus", moveIn, { once: true })
  setTimeout(() => trigger.removeEventListener("focus", moveIn), RETURN_WINDOW_MS)
  whenOptionsField(until, (field) => {
    const popover = field.closest("[data-radix-popper-content-wrapper]")
    if (popover) {
      // The options may render (or re-render) after the search box: keep every one at one stop.
      untabInnerCheckboxes(popover)
      new MutationObserver(() => untabInnerCheckboxes(popover)).observe(popover, { childList: true, subtree: true })
    }
  })
}

/** Calls `then` with the new filter's options field once the popover has rendered it (until `until`). */
function whenOptionsField(until: number, then: (field: HTMLElement) => void): void {
  const field = document.querySelector<HTMLElement>(NEW_FILTER_FIELD)
  if (field) {
    then(field)
  } else if (Date.now() < until) {
    setTimeout(() => whenOptionsField(until, then), 16)
  }
}

/** The decorative checkbox inside each option button leaves the tab order (not the accessibility tree). */
function untabInnerCheckboxes(popover: Element): void {
  popover.querySelectorAll<HTMLElement>("button [role='checkbox']").forEach((checkbox) => {
    if (checkbox.tabIndex !== -1) {
      checkbox.tabIndex = -1
    }
  })
}
