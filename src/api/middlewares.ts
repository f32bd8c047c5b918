import {
  defineMiddlewares,
  validateAndTransformBody,
  validateAndTransformQuery,
} from "@medusajs/framework/http"
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
import { boundServiceScanSessionData } from "./utils/bound-session-data"
import { guardServiceScanRequest } from "./utils/request-guard"
import { restrictEvidenceFields } from "./utils/restrict-evidence-fields"
import { validateParams } from "./utils/validate-params"

const chargebackId = validateParams({ id: ChargebackIdParam })

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
      // The signature covers the exact bytes received, so the raw body is kept.
      matcher: "/hooks/servicescan/chargebacks",
      methods: ["POST"],
      bodyParser: { preserveRawBody: true, sizeLimit: "64kb" },
      middlewares: [verifyServiceScanSignature, validateAndTransformBody(WebhookChargeback)],
    },
  ],
})
