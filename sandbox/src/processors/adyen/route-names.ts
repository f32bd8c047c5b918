/**
 * The Adyen service routes as `GET /__sandbox/stats` counts them and the `dropResponse` fault
 * names them. Kept apart from the handlers so that the store can list them without loading them.
 */
export const ADYEN_SERVICE_ROUTES = [
  "adyen.payments",
  "adyen.payments.captures",
  "adyen.payments.refunds",
  "adyen.payments.cancels",
  "adyen.payments.reversals",
  "adyen.cancels",
  "adyen.disputes.retrieveApplicableDefenseReasons",
  "adyen.disputes.supplyDefenseDocument",
  "adyen.disputes.deleteDisputeDefenseDocument",
  "adyen.disputes.defendDispute",
  "adyen.disputes.acceptDispute",
] as const;
