import {
  HttpAuthError,
  HttpConnectionError,
  HttpStatusError,
  UnreadableResponseError,
  HttpTimeoutError,
} from "../../../../lib/http"
import { DisputesErrorReason, ServiceScanDisputesError } from "../../../../lib/servicescan/disputes-client"
import { imageErrorResponse } from "../image-errors"

const request = { method: "GET", url: "https://disputes.example/disputes/image/x.jpg" }
const http = (status: number, body: unknown) => new HttpStatusError(status, body, { request })
const disputes = (reason: DisputesErrorReason, status: number, body: unknown) =>
  new ServiceScanDisputesError(reason, http(status, body))

describe("imageErrorResponse: the spec's image error rows as admin errors", () => {
  it.each([
    ["400 invalid scan id", disputes("invalid_scan_id", 400, { error: "Invalid request. Provided scan ID is not valid" }), 400, "invalid_scan_id"],
    ["400 ownership check", disputes("ownership_check_failed", 400, "Bad Request"), 502, "ownership_check_failed"],
    ["403 fraud", disputes("scan_fraudulent", 403, { error: "Forbidden" }), 403, "scan_fraudulent"],
    ["404 not labelled", disputes("image_not_available", 404, { error: "Image not found" }), 404, "image_not_available"],
    ["404 image lost", disputes("image_missing", 404, "Not Found"), 404, "image_missing"],
    ["401 no key", new HttpAuthError(401, "An API key is required for authentication", { request }), 502, "configuration_error"],
    ["403 bad key", new HttpAuthError(403, "Invalid API key provided", { request }), 502, "configuration_error"],
    ["403 permissions", new HttpAuthError(403, "Key has invalid permissions", { request }), 502, "configuration_error"],
    ["timeout", new HttpTimeoutError(1000, { request }), 504, "timeout"],
    ["unreachable", new HttpConnectionError({ request }), 503, "unreachable"],
    ["5xx", http(503, { error: "Service unavailable" }), 502, "upstream_error"],
    ["unreadable", new UnreadableResponseError("bad", "x", { request }), 502, "upstream_error"],
  ])("%s", (_row, error, status, code) => {
    expect(imageErrorResponse(error)).toMatchObject({ status, code, message: expect.any(String) })
  })

  it("says what the issue promises for fraud", () => {
    expect(imageErrorResponse(disputes("scan_fraudulent", 403, { error: "Forbidden" }))?.message).toBe(
      "This scan was judged fraudulent; no image is available"
    )
  })

  it("leaves errors that are not the service's to the framework", () => {
    expect(imageErrorResponse(new TypeError("bug"))).toBeUndefined()
  })
})
