// Not a test: run by bounds.unit.spec.ts in a child process of its own, so that the
// process's peak memory (maxRSS, a high-water mark) measures one pack build and
// nothing a test ran before it.
//   node --expose-gc -r ts-node/register/transpile-only memory-probe.ts <out.pdf> <image file>...
// Prints { peakGrowthBytes, images } as JSON and writes the pack to <out.pdf>.
import { readFileSync, writeFileSync } from "node:fs"
import { buildEvidencePack } from ".."
import { TWO_MB, gradientJpeg, makeInput, validScan } from "./fixtures"

async function main(): Promise<void> {
  const [out, ...files] = process.argv.slice(2)
  if (!out || files.length === 0) throw new Error("usage: memory-probe.ts <out.pdf> <image file>...")
  const images = files.map((file) => new Uint8Array(readFileSync(file)))
  // Warm up (fonts, pdf-lib's code, a first pack's allocations), so the figure is the images' alone.
  await buildEvidencePack(makeInput([validScan(100, gradientJpeg(64, 64))]), { maxBytes: TWO_MB })
  globalThis.gc?.()
  const before = process.resourceUsage().maxRSS
  const result = await buildEvidencePack(makeInput(images.map((bytes, index) => validScan(index + 1, bytes, "image/png"))), {
    maxBytes: TWO_MB,
  })
  const after = process.resourceUsage().maxRSS
  writeFileSync(out, result.pdf)
  process.stdout.write(JSON.stringify({ peakGrowthBytes: (after - before) * 1024, images: result.images }))
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
