// Reads a PDF on stdin with Mozilla's PDF.js (an independent parser: the pack is
// written with pdf-lib) and prints {pages, text: [one string per page]} as JSON.
// A separate process because PDF.js ships as ES modules only and the unit suite is CommonJS.
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const require = createRequire(import.meta.url)
const pdfjsRoot = dirname(require.resolve("pdfjs-dist/package.json"))
const { getDocument } = await import(join(pdfjsRoot, "legacy/build/pdf.mjs"))

const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const data = new Uint8Array(Buffer.concat(chunks))

const doc = await getDocument({
  data,
  standardFontDataUrl: join(pdfjsRoot, "standard_fonts") + "/",
  verbosity: 0,
  isEvalSupported: false,
}).promise
const text = []
for (let number = 1; number <= doc.numPages; number++) {
  const page = await doc.getPage(number)
  const content = await page.getTextContent()
  text.push(content.items.map((item) => ("str" in item ? item.str : "")).join("\n"))
}
process.stdout.write(JSON.stringify({ pages: doc.numPages, text }))
await doc.destroy()
