// The network between ServiceScan and its clients, for bench:image-proxy: a
// TCP relay in its own process that passes requests through as they come and
// paces each connection's answer bytes to a link rate (bytes per second; 0 =
// as fast as loopback goes). Both the direct downloads and the plugin's
// upstream requests cross it, so both see the same service.
// argv: <listen port> <target port>. stdin: "rate <bytes per second>" lines,
// each answered with "ok". Prints "ready" when listening.
const net = require("node:net")
const readline = require("node:readline")

const [listenPort, targetPort] = process.argv.slice(2).map(Number)
let rate = 0

const server = net.createServer((client) => {
  const upstream = net.connect(targetPort, "127.0.0.1")
  client.pipe(upstream)
  // Each connection gets its own link: a chunk goes out, and the next waits
  // until the link would have carried this one.
  let nextSendAt = 0
  let held = 0
  const hold = () => {
    if (held++ === 0) upstream.pause()
  }
  const release = () => {
    if (--held === 0) upstream.resume()
  }
  upstream.on("data", (chunk) => {
    // The reader's own pace still holds: a full socket buffer stops the link too.
    if (!client.write(chunk)) {
      hold()
      client.once("drain", release)
    }
    if (rate > 0) {
      const now = performance.now()
      nextSendAt = Math.max(nextSendAt, now) + (chunk.length / rate) * 1000
      const wait = nextSendAt - now
      if (wait > 1) {
        hold()
        setTimeout(release, wait)
      }
    }
  })
  upstream.on("end", () => client.end())
  const close = () => {
    client.destroy()
    upstream.destroy()
  }
  upstream.on("error", close)
  client.on("error", close)
  client.on("close", () => upstream.destroy())
})
server.listen(listenPort, "127.0.0.1", () => process.stdout.write("ready\n"))
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [command, value] = line.split(" ")
  if (command === "rate") {
    rate = Number(value)
    process.stdout.write("ok\n")
  }
})
