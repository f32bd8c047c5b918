/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import { focusNewFilter } from "../components/filter-focus"

/** The DataTable's pieces as @medusajs/ui renders them: the funnel button, and the new filter's popover. */
function renderFilterDom() {
  document.body.innerHTML = `
    <span data-menu="filter"><button id="funnel">funnel</button></span>
    <div data-radix-popper-content-wrapper><input id="search" placeholder="Search..."></div>`
  const popover = document.querySelector("[data-radix-popper-content-wrapper]") as HTMLElement
  // A button inside a button, as the library nests them (the HTML parser would not).
  const boxes = ["Open", "Lost"].map((label) => {
    const option = document.createElement("button")
    const box = document.createElement("button")
    box.setAttribute("role", "checkbox")
    option.append(box, label)
    popover.append(option)
    return box
  })
  const byId = (id: string) => document.getElementById(id) as HTMLElement
  return { funnel: byId("funnel"), search: byId("search"), boxes }
}

describe("focusNewFilter", () => {
  beforeEach(() => jest.useFakeTimers())
  afterEach(() => jest.useRealTimers())

  it("moves the focus the closing menu hands back to the funnel into the new filter's search box", () => {
    const { funnel, search, boxes } = renderFilterDom()
    focusNewFilter(funnel)
    funnel.focus()
    expect(document.activeElement).toBe(search)
    // One tab stop per option: the decorative checkbox inside each leaves the tab order.
    expect(boxes.map((box) => box.tabIndex)).toEqual([-1, -1])
  })

  it("keeps options rendered after the search box at one tab stop each", async () => {
    const { funnel } = renderFilterDom()
    focusNewFilter(funnel)
    funnel.focus()
    const late = document.createElement("button")
    const box = document.createElement("button")
    box.setAttribute("role", "checkbox")
    late.append(box, "Won")
    document.querySelector("[data-radix-popper-content-wrapper]")?.append(late)
    await Promise.resolve()
    expect(box.tabIndex).toBe(-1)
  })

  it("waits for the popover when the menu hands the focus back before the options render", () => {
    const { funnel, search, boxes } = renderFilterDom()
    const popover = document.querySelector("[data-radix-popper-content-wrapper]") as HTMLElement
    popover.remove()
    focusNewFilter(funnel)
    funnel.focus()
    expect(document.activeElement).toBe(funnel)
    document.body.append(popover)
    jest.advanceTimersByTime(20)
    expect(document.activeElement).toBe(search)
    expect(boxes.map((box) => box.tabIndex)).toEqual([-1, -1])
  })

  it("lets the funnel keep the focus later (the admin came back to it on purpose), and once only", () => {
    const { funnel } = renderFilterDom()
    focusNewFilter(funnel)
    jest.advanceTimersByTime(1_001)
    funnel.focus()
    expect(document.activeElement).toBe(funnel)

    funnel.blur()
    focusNewFilter(funnel)
    funnel.focus()
    expect(document.activeElement).not.toBe(funnel)
    funnel.focus()
    expect(document.activeElement).toBe(funnel)
  })
})
