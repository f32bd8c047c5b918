// @ts-check
"use strict";

/** @typedef {import("node:http").IncomingMessage} IncomingMessage */
/** @typedef {import("node:http").ServerResponse} ServerResponse */
/** @typedef {Record<string, string | number | string[]>} Headers */

const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Thrown by handlers to answer with a specific status and body. Anything else that is thrown
 * becomes a 500 without details, so only HttpError bodies ever reach a client.
 */
class HttpError extends Error {
  /**
   * @param {number} status
   * @param {{ json?: unknown, text?: string, headers?: Headers }} body
   */
  constructor(status, body) {
    super(body.text ?? (isErrorBody(body.json) ? body.json.error : `HTTP ${status}`));
    this.name = "HttpError";
    this.status = status;
    this.json = body.json;
    this.text = body.text;
    this.headers = body.headers ?? {};
  }
}

/**
 * @param {unknown} body
 * @returns {body is { error: string }}
 */
function isErrorBody(body) {
  return typeof body === "object" && body !== null && typeof (/** @type {any} */ (body).error) === "string";
}

/**
 * @param {number} status
 * @param {string} message
 * @param {Record<string, unknown>} [extra]
 */
function jsonError(status, message, extra) {
  return new HttpError(status, { json: { error: message, ...extra } });
}

/**
 * @param {number} status
 * @param {string} text
 */
function textError(status, text) {
  return new HttpError(status, { text });
}

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {Headers} [headers]
 */
function sendJson(res, status, body, headers = {}) {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": payload.length,
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(payload);
}

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {string | Buffer} body
 * @param {string} contentType
 * @param {Headers} [headers]
 */
function sendBody(res, status, body, contentType, headers = {}) {
  const payload = typeof body === "string" ? Buffer.from(body) : body;
  res.writeHead(status, { "Content-Type": contentType, "Content-Length": payload.length, ...headers });
  res.end(payload);
}

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {string} text
 * @param {Headers} [headers]
 */
function sendText(res, status, text, headers = {}) {
  sendBody(res, status, text, "text/plain; charset=utf-8", { "Cache-Control": "no-store", ...headers });
}

/**
 * @param {ServerResponse} res
 * @param {Headers} [headers]
 */
function sendNoContent(res, headers = {}) {
  res.writeHead(204, headers);
  res.end();
}

/**
 * @param {ServerResponse} res
 * @param {HttpError} error
 * @param {Headers} [headers]
 */
function sendHttpError(res, error, headers = {}) {
  const all = { ...headers, ...error.headers };
  if (error.text !== undefined) sendText(res, error.status, error.text, all);
  else sendJson(res, error.status, error.json ?? {}, all);
}

/**
 * Reads the whole request body, refusing more than `limit` bytes. A body that is too large is
 * still drained (up to a hard cap) so the client reads our 413 instead of a reset connection.
 * @param {IncomingMessage} req
 * @param {number} [limit]
 * @returns {Promise<Buffer>}
 */
function readBody(req, limit = BODY_LIMIT_BYTES) {
  const tooLarge = () =>
    new HttpError(413, { json: { error: "Request body too large" }, headers: { Connection: "close" } });
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    drain(req, limit);
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    let settled = false;
    /** @param {Buffer} chunk */
    const onData = (chunk) => {
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
 * @param {IncomingMessage} req
 * @param {number} limit
 */
function drain(req, limit) {
  let discarded = 0;
  req.on("data", (chunk) => {
    discarded += chunk.length;
    if (discarded > limit * 16) req.socket.destroy();
  });
  req.resume();
}

/**
 * @param {Buffer} body
 * @returns {{ ok: true, value: unknown } | { ok: false }}
 */
function parseJson(body) {
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

/**
 * Media type of the request without parameters, lower-cased ("" when absent).
 * @param {IncomingMessage} req
 */
function mediaType(req) {
  return String(req.headers["content-type"] ?? "")
    .split(";")[0]
    .trim()
    .toLowerCase();
}

module.exports = {
  BODY_LIMIT_BYTES,
  HttpError,
  jsonError,
  textError,
  sendJson,
  sendBody,
  sendText,
  sendNoContent,
  sendHttpError,
  readBody,
  parseJson,
  mediaType,
};
