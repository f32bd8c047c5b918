import { z } from "@medusajs/framework/zod"
import {
  HttpClient,
  RetryEvent,
  HttpAuthError,
  HttpConnectionError,
  HttpError,
  HttpStatusError,
  UnreadableResponseError,
  HttpTimeoutError,
  StreamedBody,
} from "../http"
import { isUuidV4 } from "../uuid"

/**
 * Client of the ServiceScan chargeback disputes API (docs/service.md, "The
 * disputes API": create a proof request, check it, download a scan's image).
 *
 * It sits on the shared HTTP core, so every call has a per-attempt timeout and
 * GETs are retried with jittered backoff, while the PUT that creates a proof
 * request is sent exactly once per call: the service has no idempotency key, so
 * a retried PUT whose first answer was lost would create a second proof request.
 *
 * Every 2xx body is validated with zod. The real service's documented JSON is
 * not always well-formed, so a body that does not match is a typed
 * `UnreadableResponseError`, never an exception from deep inside a caller.
 *
 * (zod comes through `@medusajs/framework/zod`, a plain re-export: the peer
 * dependency guarantees it is installed, and nothing of Medusa's runtime is used.)
 */

/** `invalid` in the spec; the real service says `fraud`. Both are the same verdict. */
export type GroundTruth = "valid" | "invalid"

export type ScanResult = {
  /** Lower-cased, as we store scan ids. */
  scanId: string
  groundTruth: GroundTruth
  /** The word the service used (`valid`, `invalid` or `fraud`), kept for the record. */
  reportedGroundTruth: string
  /** The service's image URL, present for `valid` scans only. Informational: see `imagePath`. */
  image: string | null
}

export type ProofRequestResult =
  | { status: "pending" }
  | { status: "complete"; scans: ScanResult[] }

export type DisputesImage = {
  /** The JPEG bytes as they arrive; the caller pipes them on (or destroys the body) and never buffers the whole image. */
  body: StreamedBody
  contentType: string
  contentLength: number | undefined
}

export type DisputesClientOptions = {
  /** `{base_url}` of the spec. */
  baseUrl: string
  /** The secret key, sent as `X-API-KEY`. Never logged, never part of an error message. */
  secretKey: string
  /** Per-attempt timeout. Default 10 s. */
  timeoutMs?: number
  /** Extra attempts for GETs. Default 2. The PUT is never retried. */
  maxRetries?: number
  backoff?: { baseMs?: number; capMs?: number }
  onRetry?: (event: RetryEvent) => void
}

type CallOptions = { signal?: AbortSignal }

/**
 * The spec's error rows of the disputes endpoints, by meaning. Authentication
 * rows (401/403 with plain-text bodies) are `HttpAuthError` instead.
 */
export type DisputesErrorReason =
  /** PUT 400: empty body, malformed JSON or a scan id that is not a UUIDv4. */
  | "invalid_request"
  /** GET proof 404: the proof request id does not exist. */
  | "proof_request_not_found"
  /** GET proof 403 `Forbidden`: the proof request belongs to another account. */
  | "proof_request_forbidden"
  /** GET image 400 `Invalid request. Provided scan ID is not valid`. */
  | "invalid_scan_id"
  /** GET image 400 plain `Bad Request`: the service failed to verify the scan's ownership. */
  | "ownership_check_failed"
  /** GET image 403 `Forbidden`: the scan was labelled fraudulent. */
  | "scan_fraudulent"
  /** GET image 404 `Image not found`: not labelled yet, or not this account's scan. */
  | "image_not_available"
  /** GET image 404 plain `Not Found`: labelled, but the image cannot be located. */
  | "image_missing"

/** A documented error answer of the disputes API, classified. */
export class ServiceScanDisputesError extends HttpStatusError {
  readonly reason: DisputesErrorReason

  constructor(reason: DisputesErrorReason, source: HttpStatusError) {
    super(source.status, source.body, { request: source.request, cause: source })
    this.reason = reason
  }
}

const CreateProofRequestResponse = z.object({ id: z.string().trim().min(1) }).loose()

const ScanResultBody = z
  .object({
    scanId: z.string().trim().min(1),
    groundTruth: z.string().trim().toLowerCase().pipe(z.enum(["valid", "invalid", "fraud"])),
    image: z.string().nullish(),
  })
  .loose()

const ProofRequestBody = z.union([
  z.object({ status: z.literal("pending") }).loose(),
  z.object({ status: z.literal("complete"), scans: z.array(ScanResultBody) }).loose(),
])

/** A proof request id that no account owns: `GET` on it proves the key works without side effects. */
const PROBE_PROOF_REQUEST_ID = "00000000-0000-4000-8000-000000000000"

export class DisputesClient {
  private readonly http: HttpClient

  constructor(options: DisputesClientOptions) {
    this.http = new HttpClient({
      baseUrl: options.baseUrl,
      apiKey: options.secretKey,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      backoff: options.backoff,
      onRetry: options.onRetry,
      userAgent: "medusa-plugin-servicescan/disputes",
    })
  }

  get baseUrl(): string {
    return this.http.baseUrl
  }

  /**
   * `PUT /disputes/proofRequest`. Sent once: on failure, `submissionOutcome`
   * tells whether the service may have created the proof request anyway.
   */
  async createProofRequest(scanIds: readonly string[], options: CallOptions = {}): Promise<{ id: string }> {
    if (scanIds.length === 0 || !scanIds.every(isUuidV4)) {
      // Checked here so that a bad id never costs a call (nor a proof request).
      throw new TypeError("createProofRequest takes a non-empty list of UUIDv4 scan ids")
    }
    const response = await this.call(
      {
        method: "PUT",
        path: "/disputes/proofRequest",
        body: scanIds.map((id) => id.toLowerCase()),
        idempotent: false,
        signal: options.signal,
      },
      classifyCreateError
    )
    return this.parse(CreateProofRequestResponse, response, "PUT", "/disputes/proofRequest")
  }

  /** `GET /disputes/proof/<id>`, normalising `fraud` to `invalid`. */
  async getProofRequest(id: string, options: CallOptions = {}): Promise<ProofRequestResult> {
    const path = `/disputes/proof/${encodeURIComponent(id)}`
    const response = await this.call({ method: "GET", path, signal: options.signal }, classifyProofError)
    const body = this.parse(ProofRequestBody, response, "GET", path)
    if (body.status === "pending") {
      return { status: "pending" }
    }
    return {
      status: "complete",
      scans: body.scans.map((scan) => ({
        scanId: scan.scanId.toLowerCase(),
        groundTruth: scan.groundTruth === "valid" ? "valid" : "invalid",
        reportedGroundTruth: scan.groundTruth,
        image: scan.groundTruth === "valid" ? scan.image ?? null : null,
      })),
    }
  }

  /**
   * `GET /disputes/image/<scan_id>.jpg`, as a stream. The URL is always built
   * from the configured base URL and the scan id, never taken from a proof
   * response: the secret key must only ever travel to the configured service.
   */
  async getImage(scanId: string, options: CallOptions = {}): Promise<DisputesImage> {
    if (!isUuidV4(scanId)) {
      throw new TypeError("getImage takes a UUIDv4 scan id")
    }
    const response = await this.call<StreamedBody>(
      {
        method: "GET",
        path: imagePath(scanId),
        responseType: "stream",
        headers: { accept: "image/jpeg, */*;q=0.5" },
        signal: options.signal,
      },
      classifyImageError
    )
    // A chunked answer has no length; `Number(null)` would make it 0.
    const lengthHeader = response.headers.get("content-length")
    const length = lengthHeader === null ? NaN : Number(lengthHeader)
    return {
      body: response.data,
      contentType: response.headers.get("content-type") ?? "image/jpeg",
      contentLength: Number.isInteger(length) && length >= 0 ? length : undefined,
    }
  }

  /**
   * Proves that the service answers and accepts the key, without creating
   * anything: a status check of a proof request nobody owns. Answers the
   * round-trip time; throws `HttpAuthError` for a bad key and the
   * transport errors when the service is unreachable.
   */
  async probe(options: CallOptions = {}): Promise<{ latencyMs: number }> {
    const started = Date.now()
    try {
      await this.call(
        {
          method: "GET",
          path: `/disputes/proof/${PROBE_PROOF_REQUEST_ID}`,
          // One attempt: a health check reports the service as it is now.
          idempotent: false,
          signal: options.signal,
        },
        classifyProofError
      )
    } catch (error) {
      // Past authentication, the spec's "not found" and "forbidden" both prove the key is accepted.
      const answered =
        error instanceof ServiceScanDisputesError &&
        (error.reason === "proof_request_not_found" || error.reason === "proof_request_forbidden")
      if (!answered) {
        throw error
      }
    }
    return { latencyMs: Date.now() - started }
  }

  private async call<T>(
    request: Parameters<HttpClient["request"]>[0],
    classify: (error: HttpStatusError) => DisputesErrorReason | undefined
  ): Promise<{ data: T; headers: Headers }> {
    try {
      return await this.http.request<T>(request)
    } catch (error) {
      if (error instanceof HttpStatusError && !(error instanceof HttpAuthError)) {
        const reason = classify(error)
        if (reason) {
          throw new ServiceScanDisputesError(reason, error)
        }
      }
      throw error
    }
  }

  private parse<S extends z.ZodType>(
    schema: S,
    response: { data: unknown },
    method: string,
    path: string
  ): z.output<S> {
    const parsed = schema.safeParse(response.data)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue?.path.length ? issue.path.join(".") : "body"
      throw new UnreadableResponseError(
        `${method} ${path}: unexpected response (${where}: ${issue?.message ?? "invalid"})`,
        response.data,
        { request: { method, url: this.http.url(path) } }
      )
    }
    return parsed.data
  }
}

/** The path of a scan's image at the service. */
export function imagePath(scanId: string): string {
  return `/disputes/image/${scanId.toLowerCase()}.jpg`
}

/**
 * What a failed `createProofRequest` means for the proof request:
 * - `not_created`: the service certainly did not create it; sending it again is safe;
 * - `rejected`: the service refused the content (400); sending it again cannot help;
 * - `unknown`: the request may have been processed and the answer lost (timeout,
 *   reset connection, gateway error, unreadable 2xx). Sending it again could
 *   create a duplicate, so only a person decides to.
 */
export type SubmissionOutcome = "not_created" | "rejected" | "unknown"

/** Connection errors raised before a single byte of the request reached the service. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
])

export function submissionOutcome(error: unknown): SubmissionOutcome {
  if (error instanceof HttpAuthError) {
    // Authentication is checked before the body is looked at: nothing was created.
    return "not_created"
  }
  if (error instanceof HttpStatusError) {
    if (error.status === 400) {
      return "rejected"
    }
    // A 4xx is the service's refusal and 503 its "not now", both before any
    // work; any other 5xx (its own failure, or a gateway's in front of it) may
    // come after the proof request was stored.
    return error.status >= 500 && error.status !== 503 ? "unknown" : "not_created"
  }
  if (error instanceof HttpConnectionError) {
    return !error.connected || NOT_SENT_CODES.has(causeCode(error) ?? "") ? "not_created" : "unknown"
  }
  if (error instanceof HttpTimeoutError) {
    // Timed out before the connection was even up: nothing was sent.
    return error.connected ? "unknown" : "not_created"
  }
  if (error instanceof UnreadableResponseError) {
    return "unknown"
  }
  // Not a transport error at all: our own check refused the scan ids before
  // anything went out, and sending the same ids again would be refused again.
  return error instanceof HttpError ? "unknown" : "rejected"
}

/**
 * The first `code` in the cause chain (a wrapper may nest the socket error).
 * Duck typed: errors raised inside Node's own modules may come from another
 * realm (jest's VM), where `instanceof Error` is false.
 */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown }
    if (typeof code === "string") {
      return code
    }
    current = cause
  }
  return undefined
}

function bodyText(body: unknown): string | undefined {
  return typeof body === "string" ? body.trim() : undefined
}

function jsonError(body: unknown): string | undefined {
  if (body && typeof body === "object" && "error" in body) {
    const value = (body as { error: unknown }).error
    return typeof value === "string" ? value : undefined
  }
  return undefined
}

function classifyCreateError(error: HttpStatusError): DisputesErrorReason | undefined {
  return error.status === 400 ? "invalid_request" : undefined
}

/**
 * Matched on the spec's messages, not the status alone: a 404 from a wrong base
 * URL (a proxy, a path prefix) must not make us believe our proof requests are gone.
 */
function classifyProofError(error: HttpStatusError): DisputesErrorReason | undefined {
  const message = jsonError(error.body)
  if (error.status === 404 && message === "Proof request not found") {
    return "proof_request_not_found"
  }
  if (error.status === 403 && message === "Forbidden") {
    return "proof_request_forbidden"
  }
  return undefined
}

/**
 * The image endpoint reuses 400 and 404 for different rows; the body tells them
 * apart (JSON `{error}` versus a plain-text body).
 */
function classifyImageError(error: HttpStatusError): DisputesErrorReason | undefined {
  const text = bodyText(error.body)
  const message = jsonError(error.body)
  switch (error.status) {
    case 400:
      return text !== undefined && message === undefined ? "ownership_check_failed" : "invalid_scan_id"
    case 403:
      return "scan_fraudulent"
    case 404:
      return message === "Image not found" || (message !== undefined && text === undefined)
        ? "image_not_available"
        : "image_missing"
    default:
      return undefined
  }
}
