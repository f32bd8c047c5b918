import * as crypto from "node:crypto";
import * as http from "node:http";
import * as chargebackApi from "./processors/worldpay/chargeback-api";
import type { Chargebacks } from "./processors/worldpay/chargebacks";
import { clientScript } from "./client-script";
import * as control from "./control";
import * as disputes from "./disputes";
import * as forms from "./forms";
import { framePage } from "./frame-page";
import type { Adyen } from "./processors/adyen";
import { ADYEN_CONTROL_ROUTES, ADYEN_ROUTES } from "./processors/adyen/routes";
import { BODY_LIMIT_BYTES, HttpError, readBody, sendBody, sendHttpError, sendJson, sendNoContent, type Headers } from "./http";
import type { Store } from "./store";
import { redact, sleep } from "./util";

export type LogLevel = "info" | "warn" | "error";
export type Log = (level: LogLevel, message: string) => void;

/** The services handlers share beyond the store. */
export interface Services {
  disputes: disputes.Disputes;
  chargebacks: Chargebacks;
  adyen: Adyen;
}

export interface Context {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  /** decoded path captures */
  params: string[];
  /** empty for bodiless methods */
  body: Buffer;
  store: Store;
  services: Services;
  log: Log;
  /** this server as the client addressed it, for URLs in responses */
  baseUrl: string;
}

export type Handler = (ctx: Context) => void | Promise<void>;

/** A processor's folder (src/processors/<name>/) exports its routes in this shape. */
export interface Route {
  name: string;
  method: string;
  path: RegExp;
  handler: Handler;
  /** faults and stats apply to "service" only */
  kind: "service" | "asset" | "control";
  /** answers browsers on other origins (preflight included) */
  cors?: boolean;
  /** body limit when not the default 1 MiB (document uploads) */
  bodyLimit?: (store: Store) => number;
}

/**
 * Documents get room beyond their own limit, so that a file a little over it is read and
 * answered with Worldpay's 012 rather than cut off with a 413.
 */
const documentBodyLimit = (store: Store) => Math.max(BODY_LIMIT_BYTES, store.limits.maxDocumentBytes * 4, 16 * 1024 * 1024);

const ROUTES: Route[] = [
  { name: "client.js", method: "GET", path: /^\/client\.js$/, handler: serveClientScript, kind: "asset" },
  { name: "form.frame", method: "GET", path: /^\/form\/frame$/, handler: framePage, kind: "asset" },
  { name: "forms.create", method: "POST", path: /^\/api\/v1\/forms$/, handler: forms.createForm, kind: "service", cors: true },
  { name: "token.exchange", method: "GET", path: /^\/api\/v1\/([^/]+)\/form\/([^/]+)$/, handler: forms.exchangeForm, kind: "service" },
  { name: "cnp.online", method: "POST", path: /^\/cnp\/online$/, handler: cnpOnline, kind: "service" },
  { name: "disputes.proofRequest.create", method: "PUT", path: /^\/disputes\/proofRequest$/, handler: disputes.createProofRequest, kind: "service" },
  { name: "disputes.proof.get", method: "GET", path: /^\/disputes\/proof\/([^/]+)$/, handler: disputes.getProof, kind: "service" },
  { name: "disputes.image.get", method: "GET", path: /^\/disputes\/image\/([^/]+)$/, handler: disputes.getImage, kind: "service" },
  { name: "chargebacks.retrieve", method: "GET", path: /^\/chargebacks\/?$/, handler: chargebackApi.listChargebacks, kind: "service" },
  { name: "chargebacks.retrieve", method: "GET", path: /^\/chargebacks\/([^/]+)$/, handler: chargebackApi.getChargeback, kind: "service" },
  { name: "chargebacks.update", method: "PUT", path: /^\/chargebacks\/([^/]+)$/, handler: chargebackApi.updateChargeback, kind: "service" },
  {
    name: "chargebacks.document.upload",
    method: "POST",
    path: /^\/services\/chargebacks\/upload\/([^/]+)\/([^/]+)$/,
    handler: chargebackApi.uploadDocument,
    kind: "service",
    bodyLimit: documentBodyLimit,
  },
  { name: "chargebacks.document.retrieve", method: "GET", path: /^\/services\/chargebacks\/retrieve\/([^/]+)\/([^/]+)$/, handler: chargebackApi.retrieveDocument, kind: "service" },
  {
    name: "chargebacks.document.replace",
    method: "PUT",
    path: /^\/services\/chargebacks\/replace\/([^/]+)\/([^/]+)$/,
    handler: chargebackApi.replaceDocument,
    kind: "service",
    bodyLimit: documentBodyLimit,
  },
  { name: "chargebacks.document.delete", method: "DELETE", path: /^\/services\/chargebacks\/delete\/([^/]+)\/([^/]+)$/, handler: chargebackApi.deleteDocument, kind: "service" },
  { name: "chargebacks.document.list", method: "GET", path: /^\/services\/chargebacks\/list\/([^/]+)$/, handler: chargebackApi.listDocuments, kind: "service" },
  ...ADYEN_ROUTES,
  ...controlRoutes(),
];

function controlRoutes(): Route[] {
  const table: [string, string, Handler][] = [
    ["GET", "/health", control.health],
    ["POST", "/accounts", control.createAccount],
    ["POST", "/accounts/([^/]+)/keys", control.createKey],
    ["POST", "/scans", control.createScan],
    ["POST", "/scans/([^/]+)/label", control.labelScan],
    ["DELETE", "/scans/([^/]+)/image", control.deleteImage],
    ["GET", "/proof-requests", control.listProofRequests],
    ["POST", "/proof-requests/([^/]+)/complete", control.completeProofRequest],
    ["POST", "/forms/([^/]+)/expire", control.expireForm],
    ["GET", "/processor/transactions", control.listTransactions],
    ["GET", "/stats", control.getStats],
    ["POST", "/reset-stats", control.resetStats],
    ["GET", "/faults", control.getFaults],
    ["POST", "/faults", control.setFaults],
    ["DELETE", "/faults", control.clearFaults],
    ["POST", "/chargebacks", control.raiseChargeback],
    ["POST", "/chargebacks/bulk", control.raiseChargebacks],
    ["GET", "/chargebacks", control.listChargebackCases],
    ["GET", "/chargebacks/([^/]+)", control.getChargebackCase],
    ["POST", "/chargebacks/([^/]+)/decide", control.decideChargeback],
    ["GET", "/chargebacks/([^/]+)/documents/([^/]+)", control.getChargebackDocument],
    ["GET", "/settings", control.getSettings],
    ["POST", "/settings", control.updateSettings],
    ...ADYEN_CONTROL_ROUTES,
  ];
  return table.map(([method, path, handler]) => ({
    name: `control ${method} ${path}`,
    method,
    path: new RegExp(`^/__sandbox${path}$`),
    handler,
    kind: "control",
  }));
}

function cnpOnline(ctx: Context): void {
  const result = ctx.store.processor.handle(ctx.body.toString("utf8"), {
    source: "http",
    queryUnavailable: () => ctx.store.takeQueryUnavailable(),
  });
  const t = result.transaction;
  ctx.log(
    "info",
    t
      ? `cnp: ${t.type} merchant=${t.merchantId} id=${t.id ?? "-"} -> ${t.response} ${t.message}${t.duplicate ? " (duplicate)" : ""}`
      : `cnp: request refused: ${result.envelope.message}`,
  );
  // cnpAPI reports every outcome, even a refused envelope, with HTTP 200.
  sendBody(ctx.res, 200, result.xml, "text/xml; charset=utf-8", { "Cache-Control": "no-store" });
}

const scriptCache = new Map<string, { body: string; etag: string }>();

function serveClientScript(ctx: Context): void {
  let entry = scriptCache.get(ctx.baseUrl);
  if (!entry) {
    const body = clientScript(ctx.baseUrl);
    entry = { body, etag: `"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
    // Keyed by the Host header, which clients choose: keep the cache from growing without bound.
    if (scriptCache.size >= 32) scriptCache.clear();
    scriptCache.set(ctx.baseUrl, entry);
  }
  const headers = {
    ETag: entry.etag,
    "Cache-Control": "public, max-age=300",
    "Access-Control-Allow-Origin": "*",
    "Cross-Origin-Resource-Policy": "cross-origin",
  };
  if (ctx.req.headers["if-none-match"] === entry.etag) {
    ctx.res.writeHead(304, headers);
    ctx.res.end();
    return;
  }
  sendBody(ctx.res, 200, entry.body, "application/javascript; charset=utf-8", headers);
}

/** All routes matching a path: none is a 404, and a method none of them has is a 405. */
function candidatesFor(pathname: string): Route[] {
  return ROUTES.filter((r) => r.path.test(pathname));
}

function paramsOf(route: Route, pathname: string): string[] {
  return (route.path.exec(pathname) ?? []).slice(1).map(decodeParam);
}

function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function allowHeader(candidates: Route[]): string {
  const methods = new Set<string>();
  for (const r of candidates) {
    methods.add(r.method);
    if (r.method === "GET") methods.add("HEAD");
    if (r.cors) methods.add("OPTIONS");
  }
  return [...methods].join(", ");
}

function corsHeaders(req: http.IncomingMessage, route: Route): Headers {
  const origin = req.headers.origin;
  if (!route.cors || !origin) return {};
  return { "Access-Control-Allow-Origin": origin, Vary: "Origin" };
}

/** Browsers ask before a cross-origin JSON POST; the actual request is then checked in full. */
function preflightHeaders(req: http.IncomingMessage, candidates: Route[]): Headers {
  const origin = req.headers.origin;
  return {
    ...(origin ? { "Access-Control-Allow-Origin": origin } : {}),
    "Access-Control-Allow-Methods": candidates
      .filter((r) => r.cors)
      .map((r) => r.method)
      .join(", "),
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "600",
    Vary: "Origin",
  };
}

/** Latency, random 503s and dropped connections, for service endpoints only. */
async function applyFaults(store: Store, req: http.IncomingMessage): Promise<"reset" | "error" | null> {
  const { latencyMs, errorRate, resetRate } = store.faults;
  if (latencyMs) await sleep(latencyMs);
  if (resetRate && Math.random() < resetRate) {
    req.socket.destroy();
    return "reset";
  }
  if (errorRate && Math.random() < errorRate) return "error";
  return null;
}

/**
 * The `dropResponse` fault: the request is processed in full, then the answer is lost on
 * the way back. This is the case that makes idempotency keys necessary: the work was done
 * but the client cannot know it.
 */
function takeDroppedResponse(store: Store, routeName: string): boolean {
  const drop = store.faults.dropResponse;
  if (!drop || drop.count <= 0 || (drop.route && drop.route !== routeName)) return false;
  drop.count -= 1;
  if (drop.count === 0) delete store.faults.dropResponse;
  return true;
}

function loseResponse(req: http.IncomingMessage, res: http.ServerResponse): void {
  // Handlers answer through writeHead/end; swallow the answer and cut the connection.
  res.writeHead = () => res;
  res.write = () => true;
  res.end = () => {
    req.socket.destroy();
    return res;
  };
}

export function createServer(store: Store, services: Services, log: Log, fallbackUrl: () => string): http.Server {
  const server = http.createServer((req, res) => {
    const started = Date.now();
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.on("finish", () => {
      const key = req.headers["x-api-key"];
      const keyNote = key ? ` key=${redact(Array.isArray(key) ? key[0] : key)}` : "";
      log("info", `${req.method} ${redactUrl(req.url ?? "")} -> ${res.statusCode} ${Date.now() - started}ms${keyNote}`);
    });
    handle(req, res).catch((error: unknown) => {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log("error", `unhandled error for ${req.method} ${redactUrl(req.url ?? "")}: ${detail}`);
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: "Internal sandbox error" });
    });
  });

  // Idle keep-alive connections stay open a minute, as load balancers in front of real services keep
  // them. Node's 5 s default races clients: one whose event loop was busy past the server's close picks
  // the dead socket for its next request and gets ECONNRESET for a request the service never saw.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sandbox.invalid");
    const method = req.method === "HEAD" ? "GET" : (req.method ?? "GET");
    const candidates = candidatesFor(url.pathname);
    if (candidates.length === 0) {
      req.resume();
      return sendJson(res, 404, { error: "Not found" });
    }
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      req.resume();
      const preflight = req.method === "OPTIONS" ? candidates.find((r) => r.cors) : undefined;
      if (preflight) return sendNoContent(res, preflightHeaders(req, candidates));
      return sendJson(res, 405, { error: "Method not allowed" }, { Allow: allowHeader(candidates) });
    }

    // Set early so that every answer of the route, errors and faults included, carries them.
    for (const [name, value] of Object.entries(corsHeaders(req, route))) res.setHeader(name, value);

    if (route.kind === "service") {
      store.countRequest(route.name);
      // Arrival to the answer's last byte handed to the socket: the service's own time, which a
      // bench subtracts from what its caller took.
      const arrived = process.hrtime.bigint();
      res.once("finish", () => store.recordDuration(route.name, Number(process.hrtime.bigint() - arrived) / 1e6));
      const fault = await applyFaults(store, req);
      if (fault === "reset") return;
      if (fault === "error") {
        req.resume();
        return sendJson(res, 503, { error: "Service unavailable" });
      }
      if (takeDroppedResponse(store, route.name)) loseResponse(req, res);
    }

    let body: Buffer = Buffer.alloc(0);
    try {
      if (method === "POST" || method === "PUT" || method === "DELETE") body = await readBody(req, route.bodyLimit?.(store));
      else req.resume();
      const ctx: Context = {
        req,
        res,
        url,
        params: paramsOf(route, url.pathname),
        body,
        store,
        services,
        log,
        baseUrl: baseUrlOf(req, fallbackUrl),
      };
      await route.handler(ctx);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      sendHttpError(res, error);
    }
  }

  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    else socket.destroy();
  });
  return server;
}

/**
 * URLs the sandbox hands out (image URLs, the client script's origin) follow the host the
 * client used, so `localhost` and `127.0.0.1` both work.
 */
function baseUrlOf(req: http.IncomingMessage, fallbackUrl: () => string): string {
  const host = req.headers.host;
  if (host && /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i.test(host)) return `http://${host}`;
  return fallbackUrl();
}

/**
 * Keys in query strings (the frame URL) are redacted like header keys; card numbers (the
 * Chargeback API's search by card) keep their last four digits only.
 */
export function redactUrl(url: string): string {
  return url
    .replace(/([?&]key=)([^&]*)/g, (_, prefix: string, value: string) => `${prefix}${redact(decodeParam(value))}`)
    .replace(/([?&]cardNumber=)([^&]*)/gi, (_, prefix: string, value: string) => `${prefix}…${decodeParam(value).slice(-4)}`);
}
