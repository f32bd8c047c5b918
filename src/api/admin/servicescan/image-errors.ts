import {
  HttpAuthError,
  HttpConnectionError,
  HttpStatusError,
  UnreadableResponseError,
  HttpTimeoutError,
} from "../../../lib/http"
import { ServiceScanDisputesError } from "../../../lib/servicescan/disputes-client"

export type AdminImageError = { status: number; type: string; code: string; message: string }

export const FRAUDULENT_SCAN: AdminImageError = {
  status: 403,
  type: "not_allowed",
  code: "scan_fraudulent",
  message: "This scan was judged fraudulent; no image is available",
}

/**
 * Every error row of the spec's image endpoint (and the transport failures
 * around it) as an answer an admin can act on. Upstream failures are 502/503/504,
 * a gateway's statuses, never a bare 500; nothing of the service's key or
 * raw response leaks.
 */
export function imageErrorResponse(error: unknown): AdminImageError | undefined {
  if (error instanceof ServiceScanDisputesError) {
    switch (error.reason) {
      case "scan_fraudulent":
        return FRAUDULENT_SCAN
      case "image_not_available":
        return {
          status: 404,
          type: "not_found",
          code: "image_not_available",
          message:
            "ServiceScan has no image for this scan yet: it has not been labelled, or it belongs to another ServiceScan account",
        }
      case "image_missing":
        return {
          status: 404,
          type: "not_found",
          code: "image_missing",
          message: "The scan was labelled, but ServiceScan can no longer locate its image",
        }
      case "invalid_scan_id":
        return {
          status: 400,
          type: "invalid_data",
          code: "invalid_scan_id",
          message: "scanId: ServiceScan does not accept this scan id",
        }
      case "ownership_check_failed":
        return {
          status: 502,
          type: "upstream_error",
          code: "ownership_check_failed",
          message: "ServiceScan could not verify that this scan belongs to the store's account; try again later",
        }
      default:
        break
    }
  }
  if (error instanceof HttpAuthError) {
    return {
      status: 502,
      type: "upstream_error",
      code: "configuration_error",
      message: `ServiceScan refused the store's secret key (${error.status} ${error.serviceMessage ?? ""}). Check the secretKey option of the servicescan module and the key's permissions.`.replace(" )", ")"),
    }
  }
  if (error instanceof HttpTimeoutError) {
    return { status: 504, type: "upstream_error", code: "timeout", message: "ServiceScan did not answer in time; try again later" }
  }
  if (error instanceof HttpConnectionError) {
    return { status: 503, type: "upstream_error", code: "unreachable", message: "ServiceScan cannot be reached; try again later" }
  }
  if (error instanceof HttpStatusError) {
    return {
      status: 502,
      type: "upstream_error",
      code: "upstream_error",
      message: `ServiceScan answered ${error.status}; try again later`,
    }
  }
  if (error instanceof UnreadableResponseError) {
    return { status: 502, type: "upstream_error", code: "upstream_error", message: "ServiceScan sent an unreadable image response" }
  }
  return undefined
}
