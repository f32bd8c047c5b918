import { appendFileSync, mkdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * What the secrets suite scans after the others: response bodies, log files
 * and the secret values each run used, under one folder per `npm test` run
 * (scripts/test.mjs sets SERVICESCAN_CAPTURE_DIR). Layout:
 *
 *   responses/<suite>.jsonl   { url, status, body } per store/admin/hooks/auth response
 *   logs/<suite>-<process>.log every line a process printed
 *   secrets/<suite>.jsonl     { secrets, expected } of values that exist only at run time
 *   skipped/<suite>           a suite that could not run here (no redis-server)
 */
export function captureDir(): string {
  const dir = process.env.SERVICESCAN_CAPTURE_DIR ?? join(tmpdir(), "servicescan-capture-local")
  for (const sub of ["responses", "logs", "secrets", "skipped"]) {
    mkdirSync(join(dir, sub), { recursive: true })
  }
  return dir
}

export function logDir(): string {
  return join(captureDir(), "logs")
}

export function recordResponse(suite: string, entry: { url: string; status: number; body: string }): void {
  appendFileSync(join(captureDir(), "responses", `${suite}.jsonl`), `${JSON.stringify(entry)}\n`)
}

/**
 * Records secret values that exist only at run time (the keys the sandbox
 * generated for this run), and public values expected in responses (the
 * shareable key), which the scan uses to prove it read real answers.
 */
export function recordSecrets(suite: string, secrets: Record<string, string>, expected: Record<string, string> = {}): void {
  appendFileSync(join(captureDir(), "secrets", `${suite}.jsonl`), `${JSON.stringify({ secrets, expected })}\n`)
}

/**
 * A fetch that records every answer from `baseUrls` (the Medusa processes)
 * for the secrets scan. The js-sdk and the suites' own calls both go through
 * the global fetch, so installing this once covers every store and admin call.
 */
export function installRecordingFetch(suite: string, isMedusa: (url: string) => boolean): () => void {
  const original = globalThis.fetch
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const response = await original(input, init)
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
    if (isMedusa(url)) {
      // A clone, so the caller still reads the body; binary bodies are kept as latin1 text.
      const copy = response.clone()
      copy
        .arrayBuffer()
        .then((buffer) => recordResponse(suite, { url, status: response.status, body: Buffer.from(buffer).toString("latin1") }))
        .catch(() => undefined)
    }
    return response
  }
  return () => {
    globalThis.fetch = original
  }
}

/** Notes that a suite did not run on this machine, so the secrets scan does not wait for its captures. */
export function markSkipped(suite: string): void {
  writeFileSync(join(captureDir(), "skipped", suite), "")
}
