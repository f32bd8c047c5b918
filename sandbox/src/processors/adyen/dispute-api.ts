import { sendJson } from "../../http";
import type { Context } from "../../server";
import { isPlainObject } from "../../util";
import { authenticate, jsonBody, onlyFields, requiredString, requireMerchantAccount } from "./api";
import { DISPUTE_ERRORS, type ServiceResult } from "./disputes";
import { requiredField, unexpectedInput } from "./errors";
import type { AdyenDispute } from "./state";

/**
 * Disputes API v30 (`/ca/services/DisputeService/v30/<operation>`, as
 * `https://ca-test.adyen.com/ca/services/DisputeService/v30`): five POSTs, each naming the dispute
 * by `disputePspReference` and the merchant by `merchantAccountCode`. Business failures (an
 * unknown dispute, missing documents, an expired defense period) are HTTP 200 with
 * `disputeServiceResult {success: false, errorMessage}`, as Adyen answers them; only
 * authentication, a wrong merchant account and unreadable or incomplete requests are errors.
 */

const BASE_FIELDS = ["disputePspReference", "merchantAccountCode"];

function disputeCall(
  ctx: Context,
  fields: readonly string[],
  act: (dispute: AdyenDispute, body: Record<string, unknown>) => { result: ServiceResult; extra?: Record<string, unknown> },
): void {
  const adyen = ctx.services.adyen;
  const merchant = authenticate(adyen.store, ctx.req);
  const body = jsonBody(ctx.body);
  onlyFields(body, [...BASE_FIELDS, ...fields]);
  requireMerchantAccount(merchant, body, "merchantAccountCode");
  const disputePspReference = requiredString(body, "disputePspReference");
  const dispute = adyen.store.disputes.get(disputePspReference);
  if (!dispute || dispute.merchantAccount !== merchant.merchantAccount) {
    return sendJson(ctx.res, 200, { disputeServiceResult: { success: false, errorMessage: DISPUTE_ERRORS.notFound } });
  }
  const { result, extra } = act(dispute, body);
  ctx.log("info", `adyen: disputes ${ctx.url.pathname.split("/").pop() ?? ""} ${dispute.pspReference} -> ${result.success ? "success" : result.errorMessage}`);
  sendJson(ctx.res, 200, { ...extra, disputeServiceResult: result });
}

/** `POST …/retrieveApplicableDefenseReasons` */
export function retrieveApplicableDefenseReasons(ctx: Context): void {
  disputeCall(ctx, [], (dispute) => {
    const { result, defenseReasons } = ctx.services.adyen.disputes.defenseReasons(dispute);
    return { result, ...(defenseReasons ? { extra: { defenseReasons } } : {}) };
  });
}

/** `POST …/supplyDefenseDocument`: `defenseDocuments [{content (base64), contentType, defenseDocumentTypeCode}]` */
export function supplyDefenseDocument(ctx: Context): void {
  disputeCall(ctx, ["defenseDocuments"], (dispute, body) => {
    const raw = body.defenseDocuments;
    if (raw === undefined || raw === null) throw requiredField("defenseDocuments");
    if (!Array.isArray(raw)) throw unexpectedInput('"defenseDocuments" must be an array');
    const documents = raw.map((item: unknown, i) => {
      const path = `defenseDocuments[${i}].`;
      if (!isPlainObject(item)) throw unexpectedInput(`"defenseDocuments[${i}]" must be an object`);
      onlyFields(item, ["content", "contentType", "defenseDocumentTypeCode"], path);
      return {
        content: requiredString(item, "content", path),
        contentType: requiredString(item, "contentType", path),
        defenseDocumentTypeCode: requiredString(item, "defenseDocumentTypeCode", path),
      };
    });
    return { result: ctx.services.adyen.disputes.supply(dispute, documents) };
  });
}

/** `POST …/deleteDisputeDefenseDocument`: the field is `defenseDocumentType`, not `…TypeCode`. */
export function deleteDisputeDefenseDocument(ctx: Context): void {
  disputeCall(ctx, ["defenseDocumentType"], (dispute, body) => ({
    result: ctx.services.adyen.disputes.deleteDocument(dispute, requiredString(body, "defenseDocumentType")),
  }));
}

/** `POST …/defendDispute` */
export function defendDispute(ctx: Context): void {
  disputeCall(ctx, ["defenseReasonCode"], (dispute, body) => ({
    result: ctx.services.adyen.disputes.defend(dispute, requiredString(body, "defenseReasonCode")),
  }));
}

/** `POST …/acceptDispute` */
export function acceptDispute(ctx: Context): void {
  disputeCall(ctx, [], (dispute) => ({ result: ctx.services.adyen.disputes.accept(dispute) }));
}
