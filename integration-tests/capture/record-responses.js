/**
 * Jest setup (setupFilesAfterEnv) for suites that boot Medusa inside the jest
 * process (http, admin-e2e): records the body of every answer Medusa's routes
 * send (/store, /admin, /hooks, /auth), whoever asked, for the secrets suite
 * to scan afterwards. Active only when scripts/test.mjs sets
 * SERVICESCAN_CAPTURE_DIR and SERVICESCAN_CAPTURE_SUITE; writes
 * <dir>/responses/<suite>.jsonl, one { url, status, body } per line (binary
 * bodies as latin1, compressed ones decoded).
 *
 * It wraps http.ServerResponse once per process: core modules are shared by
 * every spec file of a jest process, so a marker keeps it from wrapping twice.
 */
const http = require("node:http")
const zlib = require("node:zlib")
const { appendFileSync, mkdirSync } = require("node:fs")
const { join } = require("node:path")

const dir = process.env.SERVICESCAN_CAPTURE_DIR
const suite = process.env.SERVICESCAN_CAPTURE_SUITE
const MEDUSA_ROUTE = /^\/(store|admin|hooks|auth)(\/|\?|$)/
const MARKER = Symbol.for("servicescan.capture.responses")
const CHUNKS = Symbol("servicescan.capture.chunks")
const RECORDED = Symbol("servicescan.capture.recorded")

function collect(res, chunk, encoding) {
  if (chunk == null || typeof chunk === "function" || !res.req || !MEDUSA_ROUTE.test(res.req.url ?? "")) return
  const buffer = Buffer.isBuffer(chunk)
    ? chunk
    : typeof chunk === "string"
      ? Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8")
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  ;(res[CHUNKS] ??= []).push(buffer)
}

function decode(res, body) {
  const encoding = String(res.getHeader("content-encoding") ?? "")
  try {
    if (encoding.includes("gzip")) return zlib.gunzipSync(body)
    if (encoding.includes("br")) return zlib.brotliDecompressSync(body)
    if (encoding.includes("deflate")) return zlib.inflateSync(body)
  } catch {
    // keep the raw bytes
  }
  return body
}

if (dir && suite) {
  const proto = http.ServerResponse.prototype
  if (!proto[MARKER]) {
    proto[MARKER] = true
    mkdirSync(join(dir, "responses"), { recursive: true })
    const file = join(dir, "responses", `${suite}.jsonl`)
    const { write, end } = proto
    proto.write = function (chunk, encoding, callback) {
      collect(this, chunk, encoding)
      return write.call(this, chunk, encoding, callback)
    }
    proto.end = function (chunk, encoding, callback) {
      collect(this, chunk, encoding)
      if (this.req && MEDUSA_ROUTE.test(this.req.url ?? "") && !this[RECORDED]) {
        this[RECORDED] = true
        const body = decode(this, Buffer.concat(this[CHUNKS] ?? []))
        this[CHUNKS] = undefined
        appendFileSync(file, `${JSON.stringify({ url: `${this.req.method} ${this.req.url}`, status: this.statusCode, body: body.toString("latin1") })}\n`)
      }
      return end.call(this, chunk, encoding, callback)
    }
  }
}
