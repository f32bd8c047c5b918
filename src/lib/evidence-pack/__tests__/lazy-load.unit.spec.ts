import { execFileSync } from "node:child_process"
import { join } from "node:path"

const ROOT = join(__dirname, "..", "..", "..", "..")

/**
 * Which of the PDF and image libraries a fresh Node process holds after running `script`
 * (TypeScript, compiled on the fly as `medusa develop` does).
 */
function heavyModulesAfter(script: string): string[] {
  const out = execFileSync(
    process.execPath,
    [
      "-r",
      "ts-node/register/transpile-only",
      "-e",
      `${script}
      .then(() => {
        const loaded = Object.keys(require.cache).map((file) => /node_modules\\/(pdf-lib|pngjs|jpeg-js)\\//.exec(file)?.[1]).filter(Boolean)
        process.stdout.write(JSON.stringify([...new Set(loaded)].sort()))
      })`,
    ],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, TS_NODE_PROJECT: join(ROOT, "tsconfig.json") } }
  )
  return JSON.parse(out) as string[]
}

describe("the evidence pack's libraries load with the first pack, not at boot", () => {
  it("loading every workflow (as each server and worker does at boot) loads no PDF or image library", () => {
    expect(heavyModulesAfter(`Promise.resolve(require("./src/workflows"))`)).toEqual([])
  }, 60_000)

  it("building a pack loads them", () => {
    // An unusable size is refused by the builder itself, after it was loaded.
    const build = `require("./src/lib/evidence-pack").buildEvidencePack({}, { maxBytes: 0 }).catch(() => undefined)`
    expect(heavyModulesAfter(build)).toEqual(["jpeg-js", "pdf-lib", "pngjs"])
  }, 60_000)
})
