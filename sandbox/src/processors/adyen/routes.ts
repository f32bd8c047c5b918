import type { Route } from "../../server";
import * as checkoutApi from "./checkout-api";
import * as disputeApi from "./dispute-api";
import type { ADYEN_SERVICE_ROUTES } from "./route-names";

type AdyenRouteName = (typeof ADYEN_SERVICE_ROUTES)[number];

/**
 * Room for a 10 MB JPEG in base64 (4/3 of it) with its JSON around it, so that an oversize
 * document is read and answered `success: false`, as Adyen answers it, rather than cut off by a 413.
 */
const DEFENSE_DOCUMENT_BODY_LIMIT = 32 * 1024 * 1024;

const CHECKOUT = "/v71";
const DISPUTES = "/ca/services/DisputeService/v30";

function service(name: AdyenRouteName, path: RegExp, handler: Route["handler"], bodyLimit?: number): Route {
  return { name, method: "POST", path, handler, kind: "service", ...(bodyLimit === undefined ? {} : { bodyLimit: () => bodyLimit }) };
}

/** The Checkout and Disputes APIs' routes, all POST, as server.ts's route table takes them. */
export const ADYEN_ROUTES: readonly Route[] = [
  service("adyen.payments", new RegExp(`^${CHECKOUT}/payments$`), checkoutApi.payments),
  service("adyen.payments.captures", new RegExp(`^${CHECKOUT}/payments/([^/]+)/captures$`), checkoutApi.capture),
  service("adyen.payments.refunds", new RegExp(`^${CHECKOUT}/payments/([^/]+)/refunds$`), checkoutApi.refund),
  service("adyen.payments.cancels", new RegExp(`^${CHECKOUT}/payments/([^/]+)/cancels$`), checkoutApi.cancel),
  service("adyen.payments.reversals", new RegExp(`^${CHECKOUT}/payments/([^/]+)/reversals$`), checkoutApi.reversal),
  service("adyen.cancels", new RegExp(`^${CHECKOUT}/cancels$`), checkoutApi.standaloneCancel),
  service("adyen.disputes.retrieveApplicableDefenseReasons", new RegExp(`^${DISPUTES}/retrieveApplicableDefenseReasons$`), disputeApi.retrieveApplicableDefenseReasons),
  service("adyen.disputes.supplyDefenseDocument", new RegExp(`^${DISPUTES}/supplyDefenseDocument$`), disputeApi.supplyDefenseDocument, DEFENSE_DOCUMENT_BODY_LIMIT),
  service("adyen.disputes.deleteDisputeDefenseDocument", new RegExp(`^${DISPUTES}/deleteDisputeDefenseDocument$`), disputeApi.deleteDisputeDefenseDocument),
  service("adyen.disputes.defendDispute", new RegExp(`^${DISPUTES}/defendDispute$`), disputeApi.defendDispute),
  service("adyen.disputes.acceptDispute", new RegExp(`^${DISPUTES}/acceptDispute$`), disputeApi.acceptDispute),
];

export { ADYEN_CONTROL_ROUTES } from "./control";
