#!/usr/bin/env node
// The root package's `prepare` (npm runs it after a plain `npm install` in this folder, and before
// `npm pack`): points this clone's git at .githooks/, whose commit-msg warns on a subject over 72
// characters. Nothing is downloaded and nothing outside this clone's own .git/config is touched.
//
// It does nothing, silently, when git is missing, when this folder is not the top of a git checkout
// (an unpacked tarball, or a copy inside another repository), or when core.hooksPath already points
// here; it leaves a contributor's own core.hooksPath alone (saying so on stderr). It never fails an
// install, and never writes to stdout (`npm pack --json` prints its answer there).
import { execFileSync } from "node:child_process"
import { existsSync, realpathSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const HOOKS = ".githooks"
const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** git's answer, or undefined when git is missing or says no (exit code other than 0). */
function git(args) {
  try {
    return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
  } catch {
    return undefined
  }
}

try {
  const top = git(["rev-parse", "--show-toplevel"])
  if (top && existsSync(join(root, HOOKS, "commit-msg")) && realpathSync(top) === realpathSync(root)) {
    const current = git(["config", "--get", "core.hooksPath"])
    if (!current) {
      git(["config", "--local", "core.hooksPath", HOOKS])
      process.stderr.write(`git hooks: ${HOOKS}/ (commit-msg warns when a subject is over 72 characters)\n`)
    } else if (current !== HOOKS) {
      process.stderr.write(`git hooks: core.hooksPath is already ${current}; ${HOOKS}/commit-msg is not installed (see the README)\n`)
    }
  }
} catch {
  // Setting up a contributor's convenience must never fail an install.
}
