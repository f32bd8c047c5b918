import * as crypto from "node:crypto";
import { requireApiKey } from "./auth";
import { HttpError, jsonError, mediaType, parseJson, sendChunks, sendJson, textError } from "./http";
import { largeScanImage, scanImage } from "./jpeg";
import type { Context } from "./server";
import type { GroundTruth, ProofRequest, Scan, Store } from "./store";
import { isUuidV4 } from "./util";

/** The auto-labeller's only rule: scans of this card are true fraud. */
export const FRAUD_CARD = "4000000000000259";

const EMPTY_BODY = "Invalid request. Empty body";
const INVALID_SCAN_IDS = "Invalid request. At least one of the provided scan IDs is not valid";
const INVALID_SCAN_ID = "Invalid request. Provided scan ID is not valid";

export function labelByRule(scan: Scan): GroundTruth {
  return scan.cardNumber === FRAUD_CARD ? "invalid" : "valid";
}

interface KnownScan {
  submitted: string;
  scan: Scan;
}

export type ProofView =
  | { status: "pending" }
  | { status: "complete"; scans: ({ scanId: string; groundTruth: "valid"; image: string } | { scanId: string; groundTruth: "invalid" | "fraud" })[] };

/**
 * Proof requests and scan labels: the state machine of the disputes API, shared by its HTTP
 * handlers and the control API so both complete proof requests the same way.
 */
export class Disputes {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly store: Store) {}

  createProofRequest(accountId: string, scanIds: string[]): ProofRequest {
    const proof: ProofRequest = {
      id: crypto.randomUUID(),
      accountId,
      scanIds: uniqueIds(scanIds),
      status: "pending",
      results: null,
      createdAt: new Date().toISOString(),
      completedAt: null,
    };
    this.store.proofRequests.set(proof.id, proof);
    this.completeIfLabelled(proof);
    const delay = this.store.settings.proofDelayMs;
    if (proof.status === "pending" && delay !== null) {
      const timer = setTimeout(() => this.completeNow(proof), delay);
      timer.unref();
      this.timers.set(proof.id, timer);
    }
    return proof;
  }

  /**
   * The scans of a proof request that exist and belong to its account, with the id as submitted;
   * ids the account does not own are dropped, as if they had never been scanned.
   */
  private knownScans(proof: ProofRequest): KnownScan[] {
    return proof.scanIds.flatMap((submitted) => {
      const scan = this.store.scans.get(submitted.toLowerCase());
      return scan && scan.accountId === proof.accountId ? [{ submitted, scan }] : [];
    });
  }

  private completeIfLabelled(proof: ProofRequest): void {
    if (proof.status !== "pending") return;
    const results: NonNullable<ProofRequest["results"]> = [];
    for (const { submitted, scan } of this.knownScans(proof)) {
      if (scan.groundTruth === null) return;
      results.push({ scanId: submitted, groundTruth: scan.groundTruth });
    }
    this.finish(proof, results);
  }

  /** Finishes processing now, labelling the still-unlabelled scans by the test-card rule. */
  completeNow(proof: ProofRequest): void {
    if (proof.status !== "pending") return;
    for (const { scan } of this.knownScans(proof)) {
      if (scan.groundTruth === null) scan.groundTruth = labelByRule(scan);
    }
    this.completeIfLabelled(proof);
    // Labelling may have finished other proof requests waiting on the same scans.
    this.afterLabelling(proof.accountId);
  }

  label(scan: Scan, groundTruth: GroundTruth): void {
    scan.groundTruth = groundTruth;
    this.afterLabelling(scan.accountId);
  }

  private afterLabelling(accountId: string): void {
    for (const proof of this.store.proofRequests.values()) {
      if (proof.accountId === accountId) this.completeIfLabelled(proof);
    }
  }

  /** Results are frozen here: relabelling a scan later does not rewrite a finished proof. */
  private finish(proof: ProofRequest, results: NonNullable<ProofRequest["results"]>): void {
    proof.status = "complete";
    proof.completedAt = new Date().toISOString();
    proof.results = results;
    const timer = this.timers.get(proof.id);
    if (timer) clearTimeout(timer);
    this.timers.delete(proof.id);
  }

  render(proof: ProofRequest, baseUrl: string): ProofView {
    if (proof.status === "pending" || !proof.results) return { status: "pending" };
    const negative = this.store.settings.fraudLabel;
    return {
      status: "complete",
      scans: proof.results.map(({ scanId, groundTruth }) =>
        groundTruth === "valid"
          ? { scanId, groundTruth, image: `${baseUrl}/disputes/image/${scanId}.jpg` }
          : { scanId, groundTruth: negative },
      ),
    };
  }

  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/** Drops repeats (ids compare case-insensitively), keeping the first spelling and the order. */
function uniqueIds(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => {
    const key = id.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** `PUT /disputes/proofRequest` */
export function createProofRequest(ctx: Context): void {
  const { account } = requireApiKey(ctx.store, ctx.req, "disputes:write");
  // Like a JSON body parser, anything not declared JSON is not read at all, so it is "empty".
  const declaredJson = mediaType(ctx.req) === "application/json";
  if (!declaredJson || ctx.body.toString("utf8").trim() === "") throw jsonError(400, EMPTY_BODY);
  const parsed = parseJson(ctx.body);
  // The spec answers unparseable JSON with an empty object, not an error message.
  if (!parsed.ok) throw new HttpError(400, { json: {} });
  const ids = parsed.value;
  if (ids === null || (Array.isArray(ids) && ids.length === 0)) throw jsonError(400, EMPTY_BODY);
  if (!Array.isArray(ids) || !ids.every(isUuidV4)) throw jsonError(400, INVALID_SCAN_IDS);
  const proof = ctx.services.disputes.createProofRequest(account.id, ids);
  sendJson(ctx.res, 200, { id: proof.id });
}

/** `GET /disputes/proof/<id>` */
export function getProof(ctx: Context): void {
  const { account } = requireApiKey(ctx.store, ctx.req, "disputes:read");
  const proof = ctx.store.proofRequests.get(ctx.params[0] ?? "");
  if (!proof) throw jsonError(404, "Proof request not found");
  if (proof.accountId !== account.id) throw jsonError(403, "Forbidden");
  sendJson(ctx.res, 200, ctx.services.disputes.render(proof, ctx.baseUrl));
}

/** `GET /disputes/image/<scan_id>.jpg` */
export function getImage(ctx: Context): void {
  const { store } = ctx;
  const { account } = requireApiKey(store, ctx.req, "images:read");
  const file = ctx.params[0] ?? "";
  const scanId = file.endsWith(".jpg") ? file.slice(0, -4) : file;
  if (!file.endsWith(".jpg") || !isUuidV4(scanId)) throw jsonError(400, INVALID_SCAN_ID);
  if (store.faults.ownershipCheck === "fail") throw textError(400, "Bad Request");
  const scan = store.scans.get(scanId.toLowerCase());
  if (!scan || scan.accountId !== account.id || scan.groundTruth === null) throw jsonError(404, "Image not found");
  if (scan.groundTruth === "invalid") throw jsonError(403, "Forbidden");
  if (scan.imageDeleted) throw textError(404, "Not Found");
  const parts = scan.imageBytes === undefined ? [scanImage(scan.id)] : largeScanImage(scan.id, scan.imageBytes);
  sendChunks(ctx.res, 200, parts, "image/jpeg", {
    "Content-Disposition": `attachment; filename=${scanId}.jpg`,
    "Cache-Control": "private, no-store",
  });
}
