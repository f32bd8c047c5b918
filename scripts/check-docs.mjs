#!/usr/bin/env node
// Every document that code or a README points to exists (`npm test -- docs`).
//
// - In code and docs, every mention of a Markdown file (`docs/disputes.md`, `service-spec.md`,
//   `demo/README.md` …) names a file of the repository.
// - In Markdown, every relative link and image resolves to a file, and every `#anchor` to a heading
//   (or an explicit `<a id>`) of the target document; an anchor on a folder is one of its README's
//   headings, as GitHub shows that README under the folder.
// - Links into this repository by URL (github.com/<repo>/blob|tree/main/…, raw.githubusercontent.com)
//   name files that exist, since the npm registry page cannot follow relative ones; their anchors are
//   checked the same way.
// - A mention with an anchor in code (`docs/api.md#the-webhook`) names a heading of that document.
// - The published READMEs (shown on the npm registry pages) have no relative links at all.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import { basename, dirname, join, normalize, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && existsSync(join(root, f)))
const basenames = new Set(files.map((f) => basename(f)))
const problems = []
// The READMEs shown on the npm registry pages of the three published packages.
const PUBLISHED = new Set(["README.md", "sandbox/README.md", "storefront-widget/README.md"])
let checked = 0

const repoUrl = (() => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  const url = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url ?? ""
  const match = /github\.com[/:]([^/]+)\/([^/.]+)/.exec(url)
  return match ? { owner: match[1], name: match[2] } : undefined
})()

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, "")
    .replace(/[`*_~[\]()]/g, (c) => (c === "_" ? "_" : ""))
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")
}

const anchorCache = new Map()
function anchors(file) {
  if (!anchorCache.has(file)) {
    const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "")
    const seen = new Map()
    const set = new Set()
    for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
      const base = slug(heading)
      const n = seen.get(base) ?? 0
      seen.set(base, n + 1)
      set.add(n ? `${base}-${n}` : base)
    }
    for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) set.add(id)
    anchorCache.set(file, set)
  }
  return anchorCache.get(file)
}

function checkTarget(from, target, label, base = dirname(join(root, from))) {
  checked++
  const [path, fragment] = target.split("#")
  const found = path ? normalize(join(base, decodeURI(path))) : join(root, from)
  if (!existsSync(found)) {
    problems.push(`${from}: ${label} ${target}: no such file`)
    return
  }
  // GitHub shows a folder's README under it, so an anchor on a folder is one of that README's
  // headings; `#readme` is GitHub's own anchor for the README itself.
  const file = statSync(found).isDirectory() && fragment && fragment !== "readme" ? join(found, "README.md") : found
  if (fragment && fragment !== "readme" && !existsSync(file)) {
    problems.push(`${from}: ${label} ${target}: #${fragment} on a folder without a README.md`)
    return
  }
  if (fragment && statSync(file).isFile() && file.endsWith(".md") && !anchors(file).has(fragment)) {
    problems.push(`${from}: ${label} ${target}: no heading #${fragment} in ${relative(root, file)}`)
  }
}

for (const file of files) {
  if (!/\.(md|ts|tsx|js|mjs|cjs|json)$/.test(file) || file === "package-lock.json" || file.endsWith("CHANGELOG.md")) continue
  if (file.startsWith("docs/screenshots/") || file === "scripts/check-docs.mjs") continue
  const text = readFileSync(join(root, file), "utf8")

  // Mentions of Markdown files anywhere (code comments included), with their anchor if any.
  for (const [, mention, fragment] of text.matchAll(/(?<![\w/.-])((?:\.{1,2}\/)*[\w-]+(?:\/[\w.-]+)*\.md)\b(?:#([\w-]+))?/g)) {
    if (/^https?:/.test(mention)) continue
    checked++
    const candidates = [join(root, mention), join(root, dirname(file), mention)]
    const found = mention.includes("/") ? candidates.find((c) => existsSync(c)) : basenames.has(mention) ? undefined : null
    if (found === null || (mention.includes("/") && found === undefined)) {
      problems.push(`${file}: mentions ${mention}, which is not in the repository`)
    } else if (fragment && found && !file.endsWith(".md") && !anchors(found).has(fragment)) {
      // In Markdown the link checks below see anchors; in code this is the only check.
      problems.push(`${file}: mentions ${mention}#${fragment}: no heading #${fragment} in ${relative(root, found)}`)
    }
  }

  if (!file.endsWith(".md")) continue
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "")
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^(mailto:|https?:)/.test(target)) {
      const url = target
      if (!repoUrl) continue
      const { owner, name } = repoUrl
      const blob = new RegExp(`^https://github\\.com/${owner}/${name}/(?:blob|tree)/main/([^#?]*)(#.*)?$`).exec(url)
      const raw = new RegExp(`^https://raw\\.githubusercontent\\.com/${owner}/${name}/main/([^#?]*)$`).exec(url)
      // The repository's own page shows the root README: its anchors are that README's headings.
      const home = new RegExp(`^https://github\\.com/${owner}/${name}/?(#.+)$`).exec(url)
      if (home) {
        checkTarget(file, home[1] === "#readme" ? "README.md" : `README.md${home[1]}`, `link ${url} →`, root)
        continue
      }
      const inRepo = blob ?? raw
      if (inRepo) {
        const path = inRepo[1] || "."
        const fragment = blob?.[2] ?? ""
        checkTarget(file, `${path}${fragment}`, `link ${url} →`, root)
      }
      continue
    }
    if (PUBLISHED.has(file) && !target.startsWith("#")) {
      problems.push(`${file}: relative link ${target} (the npm registry page cannot follow it; link by URL)`)
      continue
    }
    checkTarget(file, target, "link")
  }
}

for (const problem of problems) console.error(`✗ ${problem}`)
console.log(`docs: ${checked} references checked, ${problems.length} broken`)
process.exit(problems.length ? 1 : 0)
