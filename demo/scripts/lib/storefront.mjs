// The demo storefront: bundles demo/storefront/main.tsx with esbuild (React, @medusajs/js-sdk and
// medusa-servicescan-storefront included) and serves it with the seed's publishable key injected.
// It also offers two demo-only helpers: POST /demo/chargeback, which plays the card network and
// sends a signed chargeback to the plugin's webhook (the signing secret stays in this process), and
// POST /demo/customer, which prepares the returning shopper with a saved card (demo-customer.mjs).
import { execFileSync } from "node:child_process"
import { appendFileSync, existsSync, readFileSync, readdirSync, statSync } from "node:fs"
import { createServer } from "node:http"
import { join } from "node:path"
import { handleDemoChargeback } from "./chargeback.mjs"
import { handleDemoCustomer } from "./demo-customer.mjs"
import { DEMO_DIR, ROOT_DIR } from "./util.mjs"

const WIDGET_DIR = join(ROOT_DIR, "storefront-widget")

function newestMtime(dir) {
  let newest = 0
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    const stat = statSync(path)
    newest = Math.max(newest, stat.isDirectory() ? newestMtime(path) : stat.mtimeMs)
  }
  return newest
}

/**
 * The widget is consumed as published: its dist/ build. A fresh clone has none (dist/ is not
 * committed), so it is built here when missing or older than its sources.
 * @returns {boolean} whether it was built
 */
export function ensureWidgetBuilt(logFile) {
  const dist = join(WIDGET_DIR, "dist", "index.mjs")
  if (existsSync(dist) && statSync(dist).mtimeMs >= newestMtime(join(WIDGET_DIR, "src"))) return false
  try {
    const out = execFileSync(process.execPath, ["build.mjs"], { cwd: WIDGET_DIR, encoding: "utf8", stdio: "pipe" })
    if (logFile) writeLog(logFile, out)
  } catch (error) {
    if (logFile) writeLog(logFile, `${error.stdout ?? ""}${error.stderr ?? ""}`)
    throw Object.assign(new Error("building medusa-servicescan-storefront failed (npm run build -w storefront-widget)"), {
      expected: true,
      log: logFile,
    })
  }
  return true
}

function writeLog(file, text) {
  appendFileSync(file, text)
}

export async function bundleStorefront() {
  const { build } = await import("esbuild")
  const result = await build({
    entryPoints: [join(DEMO_DIR, "storefront", "main.tsx")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    jsx: "automatic",
    minify: true,
    sourcemap: "linked",
    outfile: "app.js",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent",
  })
  const file = (suffix) => result.outputFiles.find((f) => f.path.endsWith(suffix)).text
  return { js: file("app.js"), map: file("app.js.map") }
}

/**
 * @param {{ port: number, bundle: { js: string, map: string }, config: object, medusaInternalUrl: string,
 *           webhookSecret?: string }} options
 * @returns {Promise<{ close: () => Promise<void> }>}
 */
export async function startStorefront({ port, bundle, config, medusaInternalUrl, webhookSecret }) {
  const css = readFileSync(join(DEMO_DIR, "storefront", "styles.css"), "utf8")
  // `<` is escaped so that no value can close the script element.
  const injected = `<script>window.__DEMO__ = ${JSON.stringify(config).replace(/</g, "\\u003c")};</script>`
  const html = readFileSync(join(DEMO_DIR, "storefront", "index.html"), "utf8").replace("<!--DEMO_CONFIG-->", injected)

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const send = (status, type, body) =>
      res.writeHead(status, { "Content-Type": `${type}; charset=utf-8`, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" }).end(body)
    try {
      if (req.method === "GET" && (url.pathname === "/" || url.pathname === "/index.html")) return send(200, "text/html", html)
      if (req.method === "GET" && url.pathname === "/app.js") return send(200, "text/javascript", bundle.js)
      if (req.method === "GET" && url.pathname === "/app.js.map") return send(200, "application/json", bundle.map)
      if (req.method === "GET" && url.pathname === "/styles.css") return send(200, "text/css", css)
      if (req.method === "GET" && url.pathname === "/health") return send(200, "application/json", '{"ok":true}')
      if (req.method === "POST" && url.pathname === "/demo/chargeback") {
        let raw = ""
        for await (const chunk of req) {
          raw += chunk
          if (raw.length > 10_000) return send(413, "application/json", '{"message":"Too large"}')
        }
        const answer = await handleDemoChargeback({ headers: req.headers, rawBody: raw, port, medusaUrl: medusaInternalUrl, secret: webhookSecret })
        return send(answer.status, "application/json", JSON.stringify(answer.body))
      }
      if (req.method === "POST" && url.pathname === "/demo/customer") {
        let raw = ""
        for await (const chunk of req) {
          raw += chunk
          if (raw.length > 10_000) return send(413, "application/json", '{"message":"Too large"}')
        }
        // The page's provider (its processor): the returning shopper's card is saved there.
        let providerId = config.providerId
        try {
          const asked = raw ? JSON.parse(raw).provider_id : undefined
          if (asked !== undefined) providerId = asked
        } catch {
          return send(400, "application/json", '{"message":"The body must be JSON"}')
        }
        if (!Object.values(config.providers ?? {}).includes(providerId)) {
          return send(400, "application/json", JSON.stringify({ message: `provider_id must be one of ${Object.values(config.providers ?? {}).join(", ")}` }))
        }
        const answer = await handleDemoCustomer({
          headers: req.headers,
          providerId,
          port,
          medusaUrl: medusaInternalUrl,
          publishableKey: config.publishableKey,
          regionId: config.regionId,
        })
        return send(answer.status, "application/json", JSON.stringify(answer.body))
      }
      send(404, "text/plain", "Not found")
    } catch (error) {
      // Logged here; the page gets no internals.
      console.error(`storefront: ${req.method} ${url.pathname} failed: ${error?.stack ?? error}`)
      if (!res.headersSent) send(500, "application/json", '{"message":"The demo storefront failed; see its log"}')
    }
  })
  await new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", resolve)
  })
  return {
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
