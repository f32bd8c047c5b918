import * as crypto from "node:crypto";
import * as http from "node:http";
import * as https from "node:https";
import type { Log } from "../../server";
import { adyenDateTime } from "./dates";
import { hmacSignature } from "./hmac";
import type { AdyenMerchant, AdyenNotification, AdyenStore, Amount, DeliveryAttempt } from "./state";

/**
 * Adyen's standard notifications, sent the way Adyen sends them: one NotificationRequestItem per
 * POST, HMAC-signed, with HTTP Basic when the endpoint has credentials, and retried on anything
 * but a 2xx answer within the timeout.
 *
 * Retries follow docs.adyen.com/development-resources/webhooks/troubleshoot: three quick retries
 * 9 s apart, then 2, 5, 10, 15, 30 min, 1, 2, 4 and 8 h, then every 8 h, for 30 days. Every delay
 * (and the 30 days) is multiplied by the `timeScale` setting, so tests can compress the schedule.
 *
 * Ordering: each merchant's endpoint gets one delivery at a time, oldest due first. A new
 * notification is due at once even while older ones wait to be retried, and when any delivery
 * succeeds the waiting ones become due ("if a retry is successful, we continue with the next
 * webhook in the queue"). So an endpoint that recovers receives newer events before older ones:
 * the out-of-order delivery Adyen warns receivers about.
 */

const QUICK_RETRIES_MS = [9_000, 9_000, 9_000];
const QUEUED_RETRIES_MS = [2, 5, 10, 15, 30, 60, 120, 240, 480].map((minutes) => minutes * 60_000);
const RETRY_DELAYS_MS = [...QUICK_RETRIES_MS, ...QUEUED_RETRIES_MS];
const EVERY_8_HOURS_MS = 8 * 60 * 60_000;
const RETRY_WINDOW_MS = 30 * 24 * 60 * 60_000;

/** The delay before retry number `failures` (1 = the first retry), before scaling. */
export function retryDelayMs(failures: number): number {
  return RETRY_DELAYS_MS[failures - 1] ?? EVERY_8_HOURS_MS;
}

export interface NotificationInput {
  merchant: AdyenMerchant;
  eventCode: string;
  pspReference: string;
  originalReference?: string | null | undefined;
  merchantReference: string;
  amount: Amount;
  success: boolean;
  reason: string;
  paymentMethod?: string | undefined;
  additionalData?: Record<string, string>;
  /** AUTHORISATION only: what can follow the payment */
  operations?: string[];
}

export class Webhooks {
  /** by merchantAccount: the timer of its next delivery */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** merchantAccounts with a delivery on the wire */
  private readonly busy = new Set<string>();
  private readonly requests = new Set<http.ClientRequest>();
  private closed = false;
  private counter = 0;

  constructor(
    private readonly store: AdyenStore,
    private readonly log: Log,
  ) {}

  /**
   * Signs the item with the merchant's current HMAC key and queues it. A merchant without a
   * webhook endpoint gets nothing sent (status `notSent`), as with Adyen when no webhook is set up.
   */
  enqueue(input: NotificationInput): AdyenNotification {
    const { merchant } = input;
    const success = input.success ? "true" : "false";
    const signed = {
      pspReference: input.pspReference,
      originalReference: input.originalReference ?? undefined,
      merchantAccountCode: merchant.merchantAccount,
      merchantReference: input.merchantReference,
      amount: { value: input.amount.value, currency: input.amount.currency },
      eventCode: input.eventCode,
      success,
    };
    // Keys in Adyen's (alphabetical) order; absent optional fields are left out, never null.
    const item: Record<string, unknown> = {
      additionalData: { ...input.additionalData, hmacSignature: hmacSignature(signed, merchant.hmacKey) },
      amount: signed.amount,
      eventCode: input.eventCode,
      eventDate: adyenDateTime(),
      merchantAccountCode: merchant.merchantAccount,
      merchantReference: input.merchantReference,
      ...(input.operations ? { operations: input.operations } : {}),
      ...(signed.originalReference ? { originalReference: signed.originalReference } : {}),
      ...(input.paymentMethod ? { paymentMethod: input.paymentMethod } : {}),
      pspReference: input.pspReference,
      reason: input.reason,
      success,
    };
    const now = Date.now();
    this.counter += 1;
    const notification: AdyenNotification = {
      id: `ntf_${this.counter}_${crypto.randomBytes(3).toString("hex")}`,
      seq: this.store.nextSeq(),
      merchantAccount: merchant.merchantAccount,
      eventCode: input.eventCode,
      pspReference: input.pspReference,
      originalReference: signed.originalReference ?? null,
      success,
      body: JSON.stringify({ live: "false", notificationItems: [{ NotificationRequestItem: item }] }),
      status: merchant.webhookUrl ? "pending" : "notSent",
      attempts: [],
      nextAttemptAt: merchant.webhookUrl ? now : null,
      createdAt: new Date(now).toISOString(),
      createdAtMs: now,
    };
    this.store.notifications.set(notification.id, notification);
    if (notification.status === "pending") this.schedule(merchant.merchantAccount);
    return notification;
  }

  /**
   * One more delivery of a notification now, outside its schedule: the duplicate Adyen may send.
   * It changes neither the notification's status nor its retries.
   */
  async deliverNow(notification: AdyenNotification): Promise<DeliveryAttempt> {
    const merchant = this.store.merchants.get(notification.merchantAccount);
    const attempt = merchant?.webhookUrl
      ? await this.post(merchant, notification.body, true)
      : { at: new Date().toISOString(), status: null, error: "the merchant has no webhook endpoint", durationMs: 0, forced: true };
    notification.attempts.push(attempt);
    this.log("info", `adyen: forced delivery of ${notification.eventCode} ${notification.pspReference} -> ${attempt.status ?? attempt.error}`);
    return attempt;
  }

  /** Queued notifications of a merchant become due now (after its endpoint was fixed, say). */
  wake(merchantAccount: string): void {
    const now = Date.now();
    for (const n of this.queued(merchantAccount)) n.nextAttemptAt = now;
    this.schedule(merchantAccount);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const request of this.requests) request.destroy();
    this.requests.clear();
  }

  private queued(merchantAccount: string): AdyenNotification[] {
    return [...this.store.notifications.values()]
      .filter((n) => n.merchantAccount === merchantAccount && (n.status === "pending" || n.status === "failing"))
      .sort((a, b) => a.seq - b.seq);
  }

  private schedule(merchantAccount: string): void {
    if (this.closed || this.busy.has(merchantAccount)) return; // the delivery on the wire schedules the next
    const existing = this.timers.get(merchantAccount);
    if (existing) clearTimeout(existing);
    this.timers.delete(merchantAccount);
    const times = this.queued(merchantAccount).map((n) => n.nextAttemptAt ?? Infinity);
    const next = Math.min(...times);
    if (!Number.isFinite(next)) return;
    const timer = setTimeout(() => void this.run(merchantAccount), Math.max(0, next - Date.now()));
    // Pending retries must not keep a process (or jest) alive.
    timer.unref();
    this.timers.set(merchantAccount, timer);
  }

  private async run(merchantAccount: string): Promise<void> {
    this.timers.delete(merchantAccount);
    if (this.closed) return;
    const now = Date.now();
    const queued = this.queued(merchantAccount);
    const merchant = this.store.merchants.get(merchantAccount);
    if (!merchant?.webhookUrl) {
      // The endpoint was removed: Adyen has nowhere to send them.
      for (const n of queued) {
        n.status = "notSent";
        n.nextAttemptAt = null;
      }
      return;
    }
    const due = queued.find((n) => n.nextAttemptAt !== null && n.nextAttemptAt <= now);
    if (!due) return this.schedule(merchantAccount);

    this.busy.add(merchantAccount);
    let attempt: DeliveryAttempt;
    try {
      attempt = await this.post(merchant, due.body, false);
    } finally {
      this.busy.delete(merchantAccount);
    }
    if (this.closed) return;
    due.attempts.push(attempt);
    const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
    if (ok) {
      due.status = "delivered";
      due.nextAttemptAt = null;
      for (const n of this.queued(merchantAccount)) if (n.status === "failing") n.nextAttemptAt = Date.now();
    } else {
      const failures = due.attempts.filter((a) => !a.forced).length;
      const scale = this.store.settings.timeScale;
      const nextAt = Date.now() + retryDelayMs(failures) * scale;
      if (nextAt - due.createdAtMs > RETRY_WINDOW_MS * scale) {
        due.status = "expired";
        due.nextAttemptAt = null;
      } else {
        due.status = "failing";
        due.nextAttemptAt = nextAt;
      }
    }
    this.log(
      ok ? "info" : "warn",
      `adyen: webhook ${due.eventCode} ${due.pspReference} -> ${attempt.status ?? attempt.error}${ok ? "" : ` (${due.status})`}`,
    );
    this.schedule(merchantAccount);
  }

  /** One POST to the merchant's endpoint as it is configured now (a fixed URL takes effect for queued retries). */
  private post(merchant: AdyenMerchant, body: string, forced: boolean): Promise<DeliveryAttempt> {
    const started = Date.now();
    const timeoutMs = this.store.settings.webhookTimeoutMs;
    return new Promise((resolve) => {
      let settled = false;
      let request: http.ClientRequest | null = null;
      const finish = (status: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (request) this.requests.delete(request);
        resolve({ at: new Date(started).toISOString(), status, error, durationMs: Date.now() - started, forced });
      };
      const timer = setTimeout(() => {
        request?.destroy();
        finish(null, `no answer within ${timeoutMs} ms`);
      }, timeoutMs);
      timer.unref();
      let url: URL;
      try {
        url = new URL(merchant.webhookUrl ?? "");
      } catch {
        return finish(null, "the webhook URL is not a URL");
      }
      const headers: http.OutgoingHttpHeaders = {
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(body),
        "User-Agent": "Adyen HttpClient 1.0",
      };
      const auth = merchant.webhookAuth;
      if (auth) headers.Authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
      // No keep-alive: a pooled socket would outlive the sandbox and hold the process open.
      const client = url.protocol === "https:" ? https : http;
      request = client.request(url, { method: "POST", headers, agent: false }, (res) => {
        // The answer's body means nothing to Adyen (any 2xx accepts), but it is read to the end.
        res.resume();
        res.on("end", () => finish(res.statusCode ?? null, null));
        res.on("error", (error) => finish(null, error.message));
      });
      this.requests.add(request);
      request.on("error", (error) => finish(null, error.message));
      request.end(body);
    });
  }
}
