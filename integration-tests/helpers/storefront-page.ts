import { build } from "esbuild"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

export type StorefrontPage = { url: string; close(): Promise<void> }

const FORWARDED_HEADERS = ["authorization", "content-type", "x-publishable-api-key", "accept"]

/** The request's body as text: the store API takes JSON. */
async function bodyOf(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return chunks.length ? Buffer.concat(chunks).toString("utf8") : undefined
}

/**
 * Serves a one-page storefront built from `entry` (esbuild, React in development mode) on its own
 * localhost origin, with `globals` as `window.__PAGE__`, and forwards every other path to the
 * Medusa app at `medusaUrl`. Same origin for the page and the API, as a storefront behind one
 * domain has, so the test app needs no CORS settings for a port it cannot know in advance.
 */
export async function startStorefrontPage(
  entry: string,
  medusaUrl: string,
  globals: object,
  /** Sees every body Medusa answered the page with (e.g. to scan them for secrets). */
  onAnswer: (body: string) => void = () => undefined
): Promise<StorefrontPage> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "iife",
    jsx: "automatic",
    target: "es2020",
    platform: "browser",
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "silent",
  })
  const js = bundle.outputFiles[0].text
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop checkout</title></head>
<body><div id="root"></div><script>window.__PAGE__ = ${JSON.stringify(globals)};</script><script src="/page.js"></script></body></html>`
  const server = createServer(async (req, res) => {
    try {
      if (req.url === "/" || req.url === "/page.js") {
        const [type, body] = req.url === "/page.js" ? ["text/javascript", js] : ["text/html", html]
        res.writeHead(200, { "Content-Type": `${type}; charset=utf-8`, "Cache-Control": "no-store" }).end(body)
        return
      }
      const headers: Record<string, string> = {}
      for (const name of FORWARDED_HEADERS) {
        const value = req.headers[name]
        if (typeof value === "string") headers[name] = value
      }
      const answer = await fetch(new URL(req.url ?? "/", medusaUrl), { method: req.method, headers, body: await bodyOf(req) })
      const body = Buffer.from(await answer.arrayBuffer())
      onAnswer(body.toString("utf8"))
      res.writeHead(answer.status, { "Content-Type": answer.headers.get("content-type") ?? "application/json" }).end(body)
    } catch (error) {
      res.writeHead(502, { "Content-Type": "text/plain" }).end(String(error))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
