import * as crypto from "node:crypto";
import { HttpError, type Headers } from "../../http";
import { referenceFrom } from "./state";

/**
 * Adyen's error body, `ServiceError` in its OpenAPI files: `{status, errorCode, message,
 * errorType, pspReference?}`. Every refusal of the Checkout and Disputes APIs goes through here,
 * so no sandbox-shaped `{error}` body ever reaches an Adyen client from an Adyen handler.
 */
export type ErrorType = "validation" | "security" | "configuration" | "internal";

export interface ServiceErrorBody {
  status: number;
  errorCode: string;
  message: string;
  errorType: ErrorType;
  pspReference?: string;
}

/**
 * @param withReference Adyen attaches a fresh pspReference to refusals it logged against a
 * merchant (403 and 422 in the spec's examples), not to authentication failures or parse errors.
 */
export function serviceError(
  status: number,
  errorCode: string,
  message: string,
  errorType: ErrorType,
  options: { withReference?: boolean; headers?: Headers } = {},
): HttpError {
  const body: ServiceErrorBody = { status, errorCode, message, errorType };
  if (options.withReference) body.pspReference = referenceFrom(crypto.randomBytes(16));
  return new HttpError(status, { json: body, headers: options.headers ?? {} });
}

/** The same refusal with more headers (the echoed Idempotency-Key). */
export function withHeaders(error: HttpError, headers: Headers): HttpError {
  if (error.raw !== undefined) return new HttpError(error.status, { raw: error.raw, headers: { ...error.headers, ...headers } });
  if (error.text !== undefined) return new HttpError(error.status, { text: error.text, headers: { ...error.headers, ...headers } });
  return new HttpError(error.status, { json: error.json, headers: { ...error.headers, ...headers } });
}

export const unauthorized = () => serviceError(401, "000", "HTTP Status Response - Unauthorized", "security");
export const invalidMerchantAccount = () => serviceError(403, "901", "Invalid Merchant Account", "security", { withReference: true });
/** What Adyen's JSON reader answers for a body it cannot read as the request type. */
export const unexpectedInput = (detail: string) => serviceError(400, "702", `Unexpected input: ${detail}`, "validation");
export const validation = (errorCode: string, message: string) => serviceError(422, errorCode, message, "validation", { withReference: true });
export const requiredField = (field: string) => validation("000", `Required field '${field}' is not provided.`);
