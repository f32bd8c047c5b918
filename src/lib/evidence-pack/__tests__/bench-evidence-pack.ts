// A benchmark, not a test: prints what building a pack costs.
//   node -r ts-node/register/transpile-only src/lib/evidence-pack/__tests__/bench-evidence-pack.ts
// Two cases, three valid scans each, 2000x1500 px, 2 MB limit (Worldpay's):
// - noise: the worst case for JPEG (about 5.4 MB an image), so every image is reduced;
// - photo-like: smooth content with mild grain, closer to a real scan of a card.
import { performance } from "node:perf_hooks"
import jpeg from "jpeg-js"
import { buildEvidencePack } from ".."
import { formatBytes } from "../text"
import { makeInput, noiseJpeg, noisePixels, validScan, withComment } from "./fixtures"

const LIMIT = 2 * 1024 * 1024

function photoLike(width: number, height: number, seed: number): Uint8Array {
  const grain = noisePixels(width, height, seed)
  const data = new Uint8Array(width * height * 4)
  for (let i = 0; i < width * height; i++) {
    const x = i % width
    const y = Math.floor(i / width)
    const n = grain[i * 4] / 12
    data[i * 4] = Math.min(255, (x * 200) / width + n + 20)
    data[i * 4 + 1] = Math.min(255, (y * 200) / height + n + 20)
    data[i * 4 + 2] = Math.min(255, 128 + 60 * Math.sin(x / 23) * Math.cos(y / 31) + n)
    data[i * 4 + 3] = 255
  }
  const encoded = jpeg.encode({ width, height, data }, 90).data
  return new Uint8Array(encoded.buffer, encoded.byteOffset, encoded.byteLength)
}

async function measure(name: string, images: Uint8Array[]): Promise<void> {
  const input = makeInput(images.map((bytes, index) => validScan(index + 1, bytes)))
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  const result = await buildEvidencePack(input, { maxBytes: LIMIT })
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  const given = images.reduce((sum, bytes) => sum + bytes.byteLength, 0)
  const steps = result.images
    .map((image) => `${image.embeddedSize?.width}x${image.embeddedSize?.height} ${formatBytes(image.embeddedBytes)}`)
    .join(", ")
  console.log(
    `${name}: 3 images 2000x1500 px, ${formatBytes(given)} given -> pack ${result.bytes} bytes (${formatBytes(result.bytes)}), ` +
      `${result.pages} pages, downscaled ${result.downscaled} [${steps}], ` +
      `${seconds.toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU`
  )
}

async function main(): Promise<void> {
  const noise = noiseJpeg(2000, 1500, 11, 90)
  await measure(
    "noise",
    [1, 2, 3].map((n) => withComment(noise, `scan ${n}`))
  )
  await measure(
    "photo-like",
    [1, 2, 3].map((n) => photoLike(2000, 1500, n))
  )
  console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
