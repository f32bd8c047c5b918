import type { IncomingMessage, ServerResponse } from "node:http";

export type Headers = Record<string, string | number | string[]>;

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Thrown by handlers to answer with a specific status and body. Anything else that is thrown
 * becomes a 500 without details, so only HttpError bodies ever reach a client.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly json: unknown;
  readonly text: string | undefined;
  /** A body sent as is, with its own media type (the Chargeback API's XML errors). */
  readonly raw: { body: string; contentType: string } | undefined;
  readonly headers: Headers;

  constructor(
    status: number,
    body: { json?: unknown; text?: string; raw?: { body: string; contentType: string }; headers?: Headers },
  ) {
    super(body.text ?? (isErrorBody(body.json) ? body.json.error : `HTTP ${status}`));
    this.name = "HttpError";
    this.status = status;
    this.json = body.json;
    this.text = body.text;
    this.raw = body.raw;
    this.headers = body.headers ?? {};
  }
}

function isErrorBody(body: unknown): body is { error: string } {
  return typeof body === "object" && body !== null && "error" in body && typeof body.error === "string";
}

export function jsonError(status: number, message: string, extra?: Record<string, unknown>): HttpError {
  return new HttpError(status, { json: { error: message, ...extra } });
}

export function textError(status: number, text: string): HttpError {
  return new HttpError(status, { text });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": payload.length,
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(payload);
}

export function sendBody(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Headers = {},
): void {
  const payload = typeof body === "string" ? Buffer.from(body) : body;
  res.writeHead(status, { "Content-Type": contentType, "Content-Length": payload.length, ...headers });
  res.end(payload);
}

/**
 * Sends a body made of several buffers without joining them: large bodies assembled from shared,
 * cached parts cost no copy per request.
 */
export function sendChunks(
  res: ServerResponse,
  status: number,
  chunks: readonly Buffer[],
  contentType: string,
  headers: Headers = {},
): void {
  const length = chunks.reduce((total, chunk) => total + chunk.length, 0);
  res.writeHead(status, { "Content-Type": contentType, "Content-Length": length, ...headers });
  res.cork();
  for (const chunk of chunks) res.write(chunk);
  res.end();
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Headers = {}): void {
  sendBody(res, status, text, "text/plain; charset=utf-8", { "Cache-Control": "no-store", ...headers });
}

export function sendNoContent(res: ServerResponse, headers: Headers = {}): void {
  res.writeHead(204, headers);
  res.end();
}

export function sendHttpError(res: ServerResponse, error: HttpError, headers: Headers = {}): void {
  const all = { ...headers, ...error.headers };
  if (error.raw !== undefined) sendBody(res, error.status, error.raw.body, error.raw.contentType, { "Cache-Control": "no-store", ...all });
  else if (error.text !== undefined) sendText(res, error.status, error.text, all);
  else sendJson(res, error.status, error.json ?? {}, all);
}

/**
 * Reads the whole request body, refusing more than `limit` bytes. A body that is too large is
 * still drained (up to a hard cap) so the client reads our 413 instead of a reset connection.
 */
export function readBody(req: IncomingMessage, limit: number = BODY_LIMIT_BYTES): Promise<Buffer> {
  const tooLarge = () =>
    new HttpError(413, { json: { error: "Request body too large" }, headers: { Connection: "close" } });
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    drain(req, limit);
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        settled = true;
        req.off("data", onData);
        drain(req, limit);
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => {
      if (!settled) {
        settled = true;
        resolve(Buffer.concat(chunks));
      }
    });
    req.on("error", (err) => {
      if (!settled) {
        settled = true;
        reject(err);
      }
    });
  });
}

/**
 * Discards the rest of an oversized body; past 16× the limit the client is clearly not
 * listening, so the socket is dropped.
 */
function drain(req: IncomingMessage, limit: number): void {
  let discarded = 0;
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limit * 16) req.socket.destroy();
  });
  req.resume();
}

export function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

/** Media type of the request without parameters, lower-cased ("" when absent). */
export function mediaType(req: IncomingMessage): string {
  return String(req.headers["content-type"] ?? "")
    .split(";")[0]
    .trim()
    .toLowerCase();
}
