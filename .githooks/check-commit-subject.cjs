// Warns, and never refuses, when a commit's subject is over 72 characters: a
// subject is what `git log --oneline` shows, and a paragraph there is
// unreadable. Run by the commit-msg hook beside it; see the README's "Working
// on this repository". Plain CommonJS with no dependencies: it runs before
// anything is installed or built.
const { readFileSync } = require("node:fs")

const LIMIT = 72

/**
 * The subject as git shows it (`%s`): the message's first paragraph, its lines
 * joined by spaces, after the comment lines git itself strips (`#`, and all
 * below the scissors line of `commit --verbose`).
 */
function subjectOf(message) {
  const lines = []
  for (const line of message.split(/\r?\n/)) {
    if (/^# -+ >8 -+$/.test(line)) break
    if (line.startsWith("#")) continue
    if (line.trim() === "") {
      if (lines.length) break
      continue
    }
    lines.push(line.trim())
  }
  return lines.join(" ")
}

try {
  const subject = subjectOf(readFileSync(process.argv[2], "utf8"))
  // Characters, not bytes or UTF-16 units: "é" and "→" count once.
  const length = [...subject].length
  if (length > LIMIT) {
    process.stderr.write(
      [
        `commit-msg: warning: the subject is ${length} characters; keep it to ${LIMIT} or fewer.`,
        '  Say what the commit does, in the imperative ("Move the job bodies beside their jobs"),',
        "  then a blank line and the body: the why, and the figures. The commit goes ahead.",
        "",
      ].join("\n")
    )
  }
} catch {
  // A check that cannot read the message must never stop a commit.
}
