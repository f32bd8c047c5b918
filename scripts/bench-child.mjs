// The benches talk to their helper processes (the sandbox, a run at one size) in lines on stdout.

/** Calls `onLine` with each complete line the stream carries. */
export function onLines(stream, onLine) {
  let buffer = ""
  stream.setEncoding("utf8")
  stream.on("data", (chunk) => {
    buffer += chunk
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      onLine(line)
    }
  })
}

/**
 * A child that answers in JSON, one line per answer, in order: `next()` is the next answer;
 * the child's exit rejects the answers still awaited.
 */
export function jsonAnswers(child) {
  const waiting = []
  onLines(child.stdout, (line) => waiting.shift()?.resolve(JSON.parse(line)))
  child.on("exit", (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`sandbox exited with ${code}`))
  })
  return () => new Promise((resolve, reject) => waiting.push({ resolve, reject }))
}
