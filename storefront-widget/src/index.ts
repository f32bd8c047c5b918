export {
  ServiceScanError,
  ServiceScanLoadError,
  ServiceScanPaymentError,
  ServiceScanTimeoutError,
  type ServiceScanLoadErrorKind,
  type ServiceScanPaymentErrorDetails,
  type ServiceScanPaymentErrorKind,
} from "./errors.js";
export { serviceScanDeviceId } from "./device.js";
export { loadServiceScan, type LoadServiceScanOptions } from "./loader.js";
export {
  describeResponseCode,
  serviceScanMessages,
  type ServiceScanMessages,
  type ServiceScanResponseCode,
} from "./messages.js";
export {
  payWithServiceScan,
  type PayWithServiceScanOptions,
  type ServiceScanPaymentResult,
  type ServiceScanSdk,
  type ServiceScanSubmitter,
} from "./pay.js";
export {
  ServiceScanCardForm,
  ServiceScanSavedCards,
  useServiceScanForm,
  type ServiceScanCardFormHandle,
  type ServiceScanCardFormProps,
  type ServiceScanFormController,
  type ServiceScanFormStatus,
  type ServiceScanSavedCardsProps,
  type UseServiceScanFormOptions,
} from "./react.js";
export type {
  ServiceScanCallback,
  ServiceScanFormClient,
  ServiceScanFormConfig,
  ServiceScanNamespace,
  ServiceScanPaymentSessionLike,
  ServiceScanSavedCard,
  ServiceScanSessionData,
  ServiceScanSubmitResult,
} from "./types.js";
