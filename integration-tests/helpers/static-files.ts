import { readdir, rm } from "node:fs/promises"
import { join } from "node:path"

/**
 * The evidence files a spec's app stores through Medusa's local File Module
 * provider, which writes them into `./static` (gitignored). `forget` removes
 * the ones that appeared since `remember`, to keep a developer's folder
 * small. When the http suite runs as shards side by side (scripts/test.mjs
 * sets SERVICESCAN_HTTP_SHARD), both processes share the folder and the new
 * files may be the other shard's, still in use (seen: evidence-at-rest's pack
 * removed under it), so nothing is removed then.
 */
export function staticEvidenceFiles() {
  const dir = join(process.cwd(), "static")
  const list = async () => new Set((await readdir(dir).catch(() => [] as string[])).filter((name) => name.includes("servicescan-evidence-")))
  let before = new Set<string>()
  return {
    async remember() {
      before = await list()
    },
    async forget() {
      if (process.env.SERVICESCAN_HTTP_SHARD) {
        return
      }
      for (const name of await list()) {
        if (!before.has(name)) {
          await rm(join(dir, name), { force: true })
        }
      }
    },
  }
}
