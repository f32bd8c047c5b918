import {
  authenticate,
  defineMiddlewares,
  validateAndTransformBody,
  validateAndTransformQuery,
} from "@medusajs/framework/http"
import { serializeOrderPaymentOperations, serializePaymentOperations } from "./admin/payments/serialize-payment-operations"
import { AdminGetDisputeAnalytics } from "./admin/servicescan/analytics/validators"
import { listDisputeCasesQueryConfig, retrieveDisputeCaseQueryConfig } from "./admin/servicescan/cases/query-config"
import { adminPolicyRoutes } from "./admin/servicescan/route-policies"
import {
  AdminAssignDisputeCase,
  AdminGetDisputeCase,
  AdminListDisputeCases,
  AdminRespondToDispute,
  DisputeCaseIdParam,
} from "./admin/servicescan/cases/validators"
import { listChargebacksQueryConfig, retrieveChargebackQueryConfig } from "./admin/servicescan/query-config"
import {
  AdminAttachScanIds,
  AdminCheckChargeback,
  AdminGetChargeback,
  AdminGetScanImage,
  AdminListChargebacks,
  AdminRecordChargeback,
  AdminSetChargebackOutcome,
  ChargebackIdParam,
} from "./admin/servicescan/validators"
import { WebhookChargeback } from "./hooks/servicescan/chargebacks/validators"
import { verifyServiceScanSignature } from "./hooks/servicescan/chargebacks/verify-signature"
import { guardCartCompletion } from "./store/carts/guard-completion"
import { guardSavedCardShippingAddress } from "./store/carts/guard-shipping-address"
import { limitCompletionVelocity } from "./store/carts/velocity"
import { boundServiceScanSessionData } from "./utils/bound-session-data"
import { hideServiceScanSecrets } from "./utils/public-session-data"
import { guardServiceScanRequest, serviceScanErrorHandler } from "./utils/request-guard"
import { restrictEvidenceFields } from "./utils/restrict-evidence-fields"
import { validateParams } from "./utils/validate-params"

const chargebackId = validateParams({ id: ChargebackIdParam })
const caseId = validateParams({ id: DisputeCaseIdParam })

export default defineMiddlewares({
  // Medusa's error handler, but a path Express cannot decode under our prefixes is a 400 (see request-guard.ts).
  errorHandler: serviceScanErrorHandler,
  routes: [
    // At the root and without `methods`: registered before every other route layer but Medusa's
    // `/admin*` (see errorHandler). It acts on /admin/servicescan, /store/servicescan and /hooks/servicescan only.
    { matcher: "/", middlewares: [guardServiceScanRequest, restrictEvidenceFields] },
    // Medusa's RBAC policies of every admin route of ours, checked before the route's own middlewares (see route-policies.ts).
    ...adminPolicyRoutes,
    // Every store answer: no form id, token, seal or fingerprint of a ServiceScan session leaves (see the middleware).
    { matcher: "/store", middlewares: [hideServiceScanSecrets] },
    {
      // Medusa's own route, bounded for this plugin's providers only (see the middleware).
      matcher: /^\/store\/payment-collections\/[^/]+\/payment-sessions\/?$/,
      methods: ["POST"],
      middlewares: [boundServiceScanSessionData],
    },
    {
      matcher: "/admin/servicescan/chargebacks",
      methods: ["GET"],
      middlewares: [validateAndTransformQuery(AdminListChargebacks, listChargebacksQueryConfig)],
    },
    {
      matcher: "/admin/servicescan/chargebacks",
      methods: ["POST"],
      middlewares: [
        validateAndTransformBody(AdminRecordChargeback),
        validateAndTransformQuery(AdminGetChargeback, retrieveChargebackQueryConfig),
      ],
    },
    {
      matcher: "/admin/servicescan/chargebacks/:id",
      methods: ["GET"],
      middlewares: [chargebackId, validateAndTransformQuery(AdminGetChargeback, retrieveChargebackQueryConfig)],
    },
    {
      matcher: "/admin/servicescan/chargebacks/:id/scans",
      methods: ["POST"],
      middlewares: [
        chargebackId,
        validateAndTransformBody(AdminAttachScanIds),
        validateAndTransformQuery(AdminGetChargeback, retrieveChargebackQueryConfig),
      ],
    },
    {
      matcher: "/admin/servicescan/chargebacks/:id/check",
      methods: ["POST"],
      middlewares: [
        chargebackId,
        validateAndTransformBody(AdminCheckChargeback),
        validateAndTransformQuery(AdminGetChargeback, retrieveChargebackQueryConfig),
      ],
    },
    {
      matcher: "/admin/servicescan/chargebacks/:id/outcome",
      methods: ["POST"],
      middlewares: [
        chargebackId,
        validateAndTransformBody(AdminSetChargebackOutcome),
        validateAndTransformQuery(AdminGetChargeback, retrieveChargebackQueryConfig),
      ],
    },
    {
      matcher: "/admin/servicescan/scans/:scanId/image",
      methods: ["GET"],
      middlewares: [validateAndTransformQuery(AdminGetScanImage, { defaults: [], isList: false })],
    },
    {
      matcher: "/admin/servicescan/cases",
      methods: ["GET"],
      middlewares: [validateAndTransformQuery(AdminListDisputeCases, listDisputeCasesQueryConfig)],
    },
    {
      matcher: "/admin/servicescan/cases/:id",
      methods: ["GET"],
      middlewares: [caseId, validateAndTransformQuery(AdminGetDisputeCase, retrieveDisputeCaseQueryConfig)],
    },
    {
      matcher: "/admin/servicescan/cases/:id/assign",
      methods: ["POST"],
      middlewares: [
        caseId,
        validateAndTransformBody(AdminAssignDisputeCase),
        validateAndTransformQuery(AdminGetDisputeCase, retrieveDisputeCaseQueryConfig),
      ],
    },
    {
      matcher: "/admin/servicescan/chargebacks/:id/respond",
      methods: ["POST"],
      middlewares: [
        chargebackId,
        validateAndTransformBody(AdminRespondToDispute),
        validateAndTransformQuery(AdminGetChargeback, retrieveChargebackQueryConfig),
      ],
    },
    {
      matcher: "/admin/servicescan/chargebacks/:id/evidence-pack",
      methods: ["GET"],
      middlewares: [chargebackId],
    },
    {
      matcher: "/admin/servicescan/analytics",
      methods: ["GET"],
      middlewares: [validateAndTransformQuery(AdminGetDisputeAnalytics, { defaults: [], isList: false })],
    },
    {
      // Medusa's own route: velocity limits against card testing, before anything else of the
      // completion runs (see velocity.ts). Registered first: same matcher, kept in this order.
      matcher: "/store/carts/:id/complete",
      methods: ["POST"],
      middlewares: [limitCompletionVelocity],
    },
    {
      // Medusa's own route: a ServiceScan cart must not place an order with a canceled payment,
      // pay twice with one form, nor pay with a saved card but for its signed-in owner (see guard-completion.ts).
      matcher: "/store/carts/:id/complete",
      methods: ["POST"],
      middlewares: [guardCartCompletion],
    },
    {
      // Medusa's own route: a change of shipping address by anyone but a saved card's owner drops its session.
      matcher: "/store/carts/:id",
      methods: ["POST"],
      middlewares: [guardSavedCardShippingAddress],
    },
    {
      // The signed-in customer's saved cards.
      matcher: "/store/servicescan/payment-methods*",
      middlewares: [authenticate("customer", ["session", "bearer"])],
    },
    {
      // Medusa's own routes: captures and refunds of one ServiceScan payment, one at a time.
      matcher: "/admin/payments/:id/refund",
      methods: ["POST"],
      middlewares: [serializePaymentOperations],
    },
    {
      matcher: "/admin/payments/:id/capture",
      methods: ["POST"],
      middlewares: [serializePaymentOperations],
    },
    {
      // Medusa's own route: cancelOrderWorkflow refunds what each payment captured.
      matcher: "/admin/orders/:id/cancel",
      methods: ["POST"],
      middlewares: [serializeOrderPaymentOperations],
    },
    {
      // The signature covers the exact bytes received, so the raw body is kept.
      matcher: "/hooks/servicescan/chargebacks",
      methods: ["POST"],
      bodyParser: { preserveRawBody: true, sizeLimit: "64kb" },
      middlewares: [verifyServiceScanSignature, validateAndTransformBody(WebhookChargeback)],
    },
    {
      // A processor's notification webhook: the raw bytes go to the processor's own code, which checks them.
      matcher: "/hooks/servicescan/adyen",
      methods: ["POST"],
      bodyParser: { preserveRawBody: true, sizeLimit: "256kb" },
    },
  ],
})
