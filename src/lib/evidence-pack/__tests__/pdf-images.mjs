// Reads a PDF on stdin with Mozilla's PDF.js (an independent reader: the pack is
// written with pdf-lib) and prints every image it paints, decoded as a viewer
// decodes it, as JSON: [{ page, width, height, channels, data: base64 of the pixels }].
// A separate process because PDF.js ships as ES modules only and the unit suite is CommonJS.
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const require = createRequire(import.meta.url)
const pdfjsRoot = dirname(require.resolve("pdfjs-dist/package.json"))
const { getDocument, OPS } = await import(join(pdfjsRoot, "legacy/build/pdf.mjs"))

const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const data = new Uint8Array(Buffer.concat(chunks))

const doc = await getDocument({
  data,
  standardFontDataUrl: join(pdfjsRoot, "standard_fonts") + "/",
  verbosity: 0,
  isEvalSupported: false,
  isOffscreenCanvasSupported: false,
}).promise
const images = []
for (let number = 1; number <= doc.numPages; number++) {
  const page = await doc.getPage(number)
  const operators = await page.getOperatorList()
  for (let index = 0; index < operators.fnArray.length; index++) {
    if (operators.fnArray[index] !== OPS.paintImageXObject) continue
    const name = operators.argsArray[index][0]
    const image = await new Promise((resolve) => page.objs.get(name, resolve))
    // kind 2 is RGB, 3 RGBA (PDF.js's ImageKind).
    const channels = image.kind === 2 ? 3 : image.kind === 3 ? 4 : 0
    images.push({ page: number, width: image.width, height: image.height, channels, data: Buffer.from(image.data).toString("base64") })
  }
}
process.stdout.write(JSON.stringify(images))
await doc.destroy()
