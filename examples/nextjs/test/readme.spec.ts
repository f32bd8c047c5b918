import { readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * The widget README's Next.js section is the code the example runs: every code block there that
 * starts with a `// src/...` path comment must equal that file of examples/nextjs, byte for byte,
 * so the snippet a store copies is the one the Chromium spec pays through.
 */
const root = join(__dirname, "..", "..", "..")
const readme = readFileSync(join(root, "storefront-widget", "README.md"), "utf8")
const start = readme.indexOf("## Next.js starter: the payment step")
const section = readme.slice(start, readme.indexOf("\n## ", start + 1))
const blocks = [...section.matchAll(/```tsx?\n(\/\/ (src\/\S+)\n[\s\S]*?)```/g)].map(([, code, path]) => ({ code, path }))

describe("the widget README's Next.js section", () => {
  it("points to the example", () => {
    expect(start).toBeGreaterThan(-1)
    expect(section).toContain("(https://github.com/servicescan/medusa-plugin-servicescan/tree/main/examples/nextjs#readme)")
  })

  it("shows the payment component and the completion action", () => {
    expect(blocks.map((b) => b.path)).toEqual([
      "src/modules/checkout/components/servicescan-payment/index.tsx",
      "src/lib/data/servicescan.ts",
    ])
  })

  it.each(blocks.map((b) => [b.path, b.code]))("%s is the example's file, unchanged", (path, code) => {
    expect(readFileSync(join(__dirname, "..", path), "utf8")).toBe(code)
  })
})
