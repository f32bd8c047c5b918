import {
  authenticate,
  defineMiddlewares,
  validateAndTransformBody,
  validateAndTransformQuery,
} from "@medusajs/framework/http"
import { serializeRefunds } from "./admin/payments/serialize-refunds"
import { listDisputeCasesQueryConfig, retrieveDisputeCaseQueryConfig } from "./admin/servicescan/cases/query-config"
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
import { boundServiceScanSessionData } from "./utils/bound-session-data"
import { guardServiceScanRequest } from "./utils/request-guard"
import { restrictEvidenceFields } from "./utils/restrict-evidence-fields"
import { validateParams } from "./utils/validate-params"

const chargebackId = validateParams({ id: ChargebackIdParam })
const caseId = validateParams({ id: DisputeCaseIdParam })

export default defineMiddlewares({
  routes: [
    // At the root and without `methods`: registered before every other route
    // layer, Medusa's included. It acts on /admin/servicescan and /hooks/servicescan only.
    { matcher: "/", middlewares: [guardServiceScanRequest, restrictEvidenceFields] },
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
      // Medusa's own route: a ServiceScan cart must not place an order with a
      // canceled payment, nor pay twice with one form (see guard-completion.ts).
      matcher: "/store/carts/:id/complete",
      methods: ["POST"],
      middlewares: [guardCartCompletion],
    },
    {
      // The signed-in customer's saved cards.
      matcher: "/store/servicescan/payment-methods*",
      middlewares: [authenticate("customer", ["session", "bearer"])],
    },
    {
      // Medusa's own route: refunds of one ServiceScan payment, one at a time.
      matcher: "/admin/payments/:id/refund",
      methods: ["POST"],
      middlewares: [serializeRefunds],
    },
    {
      // The signature covers the exact bytes received, so the raw body is kept.
      matcher: "/hooks/servicescan/chargebacks",
      methods: ["POST"],
      bodyParser: { preserveRawBody: true, sizeLimit: "64kb" },
      middlewares: [verifyServiceScanSignature, validateAndTransformBody(WebhookChargeback)],
    },
  ],
})
