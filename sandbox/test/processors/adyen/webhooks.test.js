// @ts-check
"use strict";

/**
 * The webhook sender: standard notifications, one item per POST, signed with the merchant's HMAC
 * key, with Basic auth when configured, retried on Adyen's schedule (scaled by timeScale) until a
 * 2xx answer within the timeout, and duplicated or reordered as Adyen may.
 */

const { DEMO_ADYEN, adyenHmacSignature, adyenSigningString, startSandbox } = require("../../../dist/index");
const { control, useSandbox } = require("../../helpers");
const { CHECKOUT, adyenAccount, adyenCall, hmacValid, notifications, pay, settled, sleep, updateMerchant, webhookReceiver } = require("./helpers");

const t = useSandbox({ adyen: { timeScale: 0.001 } });
/** @type {Awaited<ReturnType<typeof webhookReceiver>>[]} */
const receivers = [];

afterEach(async () => {
  await control(t.url, "/adyen/settings", { timeScale: 0.001, webhookTimeoutMs: 10_000 });
});
afterAll(async () => {
  for (const receiver of receivers) {
    expect(receiver.problems).toEqual([]);
    await receiver.close();
  }
});

/**
 * An account of its own (its own queue) whose webhook goes to a new receiver.
 * @param {Record<string, unknown>} [adyen]
 */
async function setup(adyen = {}) {
  const account = await adyenAccount(t.url, { webhookAuth: { username: "hook-user", password: "hook-pass" }, ...adyen });
  const receiver = await webhookReceiver({ hmacKey: account.adyen.hmacKey });
  receivers.push(receiver);
  await updateMerchant(t.url, account.adyen.merchantAccount, { webhookUrl: receiver.url });
  return { account, receiver, who: { keys: account.keys, merchant: account.adyen } };
}

/** @param {string} psp */
async function notificationOf(psp) {
  const [n] = await notifications(t.url, { pspReference: psp });
  return n;
}

describe("HMAC", () => {
  test("Adyen's documented test vector", () => {
    const item = {
      pspReference: "7914073381342284",
      merchantAccountCode: "TestMerchant",
      merchantReference: "TestPayment-1407325143704",
      amount: { value: 1130, currency: "EUR" },
      eventCode: "AUTHORISATION",
      success: "true",
    };
    expect(adyenSigningString(item)).toBe("7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true");
    expect(adyenHmacSignature(item, "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056")).toBe("coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=");
  });

  test("the official Node library's test vectors", () => {
    const key = "DFB1EB5485895CFA84146406857104ABB4CBCABDC8AAF103A624C8F6A3EAAB00";
    expect(adyenHmacSignature("pspReference:originalReference:merchantAccount:reference:1000:EUR:REPORT_AVAILABLE:true", key)).toBe(
      "ZNBPtI+oDyyRrLyD1XirkKnQgIAlFc07Vj27TeHsDRE=",
    );
    const item = {
      pspReference: "pspReference",
      originalReference: "originalReference",
      merchantAccountCode: "merchantAccount",
      merchantReference: "reference",
      amount: { value: 1000, currency: "EUR" },
      eventCode: "EVENT",
      success: "true",
    };
    expect(adyenHmacSignature(item, key)).toBe("ipnxGCaUZ4l8TUW75a71/ghd2Fe5ffvX0pV4TLTntIc=");
  });
});

describe("deliveries", () => {
  test("one signed item per POST, Basic auth, live \"false\", strings for success, a date with its offset", async () => {
    const { account, receiver, who } = await setup();
    const payment = await pay(t.url, who);
    await receiver.waitFor((items) => items.length >= 1);
    const [delivery] = receiver.deliveries;
    if (!delivery) throw new Error("nothing delivered");
    expect(delivery.path).toBe("/hooks/adyen");
    expect(delivery.authorization).toBe(`Basic ${Buffer.from("hook-user:hook-pass").toString("base64")}`);
    expect(delivery.body.live).toBe("false");
    expect(delivery.body.notificationItems).toHaveLength(1);
    expect(delivery.item).toMatchObject({
      eventCode: "AUTHORISATION",
      pspReference: payment.body.pspReference,
      merchantAccountCode: account.adyen.merchantAccount,
      success: "true",
    });
    expect(delivery.item.eventDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    expect(hmacValid(delivery.item, account.adyen.hmacKey)).toBe(true);
    expect(hmacValid(delivery.item, t.sb.demo.adyen.hmacKey)).toBe(false);
    expect(await notificationOf(payment.body.pspReference)).toMatchObject({ status: "delivered", deliveries: 1 });
  });

  test("without Basic credentials no Authorization header is sent", async () => {
    const { receiver, who } = await setup({ webhookAuth: null });
    await pay(t.url, who);
    await receiver.waitFor((items) => items.length >= 1);
    expect(receiver.deliveries[0]?.authorization).toBeUndefined();
  });

  test("a merchant without a webhook URL gets nothing sent", async () => {
    const account = await adyenAccount(t.url);
    const payment = await pay(t.url, { keys: account.keys, merchant: account.adyen });
    expect(await notificationOf(payment.body.pspReference)).toMatchObject({ status: "notSent", deliveries: 0, nextAttemptAt: null });
  });

  test("an endpoint gets one delivery at a time, in order while it answers", async () => {
    const { receiver, who } = await setup();
    const payment = await pay(t.url, who);
    for (const value of [100, 200, 300]) {
      await adyenCall(t.url, `${CHECKOUT}/payments/${payment.body.pspReference}/captures`, {
        merchant: who.merchant,
        body: { merchantAccount: who.merchant.merchantAccount, amount: { currency: "USD", value } },
      });
    }
    const items = await receiver.waitFor((all) => all.length >= 4);
    expect(items.map((i) => `${i.eventCode}:${i.amount.value}`)).toEqual(["AUTHORISATION:1000", "CAPTURE:100", "CAPTURE:200", "CAPTURE:300"]);
  });
});

describe("retries", () => {
  test("non-2xx answers are retried on Adyen's schedule: 9 s three times, then 2 min (scaled by timeScale)", async () => {
    const { receiver, who } = await setup();
    let calls = 0;
    receiver.respond = () => (++calls <= 4 ? 500 : 200);
    const payment = await pay(t.url, who);
    await receiver.waitFor((items) => items.length >= 5, 5000);
    const gaps = receiver.deliveries.slice(1).map((d, i) => d.at - (receiver.deliveries[i]?.at ?? 0));
    // 9 s, 9 s, 9 s, then 2 min, at timeScale 0.001; timers may fire a little late, never early.
    expect(gaps.slice(0, 3).every((gap) => gap >= 8)).toBe(true);
    expect(gaps[3]).toBeGreaterThanOrEqual(115);
    const n = await notificationOf(payment.body.pspReference);
    expect(n).toMatchObject({ status: "delivered", deliveries: 5 });
    expect(n.attempts.map((/** @type {{ status: number }} */ a) => a.status)).toEqual([500, 500, 500, 500, 200]);
    // Every retry is the same signed body.
    expect(new Set(receiver.deliveries.map((d) => d.raw)).size).toBe(1);
  });

  test("a redirect is not followed: it counts as a failure", async () => {
    const { receiver, who } = await setup();
    let calls = 0;
    receiver.respond = () => (++calls === 1 ? 302 : 204);
    const payment = await pay(t.url, who);
    await receiver.waitFor((items) => items.length >= 2);
    await settled(t.url);
    expect((await notificationOf(payment.body.pspReference)).attempts.map((/** @type {{ status: number }} */ a) => a.status)).toEqual([302, 204]);
  });

  test("an answer later than the timeout is a failure, and the notification is retried", async () => {
    await control(t.url, "/adyen/settings", { webhookTimeoutMs: 100 });
    const { receiver, who } = await setup();
    let calls = 0;
    receiver.respond = () => (++calls === 1 ? "hang" : 200);
    const payment = await pay(t.url, who);
    await receiver.waitFor((items) => items.length >= 2);
    await settled(t.url);
    const n = await notificationOf(payment.body.pspReference);
    expect(n.status).toBe("delivered");
    expect(n.attempts[0]).toMatchObject({ status: null, error: "no answer within 100 ms" });
  });

  test("an endpoint that refuses connections is retried; fixing its URL delivers the queue at once", async () => {
    await control(t.url, "/adyen/settings", { timeScale: 1 });
    const { account, receiver, who } = await setup();
    await updateMerchant(t.url, account.adyen.merchantAccount, { webhookUrl: "http://127.0.0.1:9/closed" });
    const payment = await pay(t.url, who);
    const started = Date.now();
    while ((await notificationOf(payment.body.pspReference)).status !== "failing") {
      if (Date.now() - started > 3000) throw new Error("never failed");
      await sleep(10);
    }
    const failing = await notificationOf(payment.body.pspReference);
    // The next retry is 9 s away on an unscaled clock.
    expect(Date.parse(failing.nextAttemptAt) - Date.now()).toBeGreaterThan(5000);
    await updateMerchant(t.url, account.adyen.merchantAccount, { webhookUrl: receiver.url });
    await receiver.waitFor((items) => items.length >= 1, 2000);
    expect((await notificationOf(payment.body.pspReference)).status).toBe("delivered");
  });

  test("an endpoint that recovers gets newer events first: out of order, as Adyen warns", async () => {
    await control(t.url, "/adyen/settings", { timeScale: 0.05 });
    const { receiver, who } = await setup();
    let down = true;
    receiver.respond = () => (down ? 503 : 200);
    const payment = await pay(t.url, who);
    await receiver.waitFor((items) => items.length >= 1);
    down = false;
    // The AUTHORISATION waits 450 ms for its retry; the CAPTURE is due now.
    await adyenCall(t.url, `${CHECKOUT}/payments/${payment.body.pspReference}/captures`, {
      merchant: who.merchant,
      body: { merchantAccount: who.merchant.merchantAccount, amount: { currency: "USD", value: 1000 } },
    });
    await receiver.waitFor((items) => items.filter((i) => i.eventCode === "AUTHORISATION").length >= 2 && items.some((i) => i.eventCode === "CAPTURE"));
    const accepted = receiver.deliveries.slice(1).map((d) => d.item.eventCode);
    expect(accepted).toEqual(["CAPTURE", "AUTHORISATION"]);
    // And once one delivery succeeded, the queued one did not wait out its 450 ms.
    const capture = receiver.deliveries.find((d) => d.item.eventCode === "CAPTURE");
    const retry = receiver.deliveries[2];
    expect((retry?.at ?? 0) - (capture?.at ?? 0)).toBeLessThan(300);
  });

  test("retries stop 30 days (scaled) after the event: the notification expires", async () => {
    await control(t.url, "/adyen/settings", { timeScale: 0.000001 });
    const { receiver, who } = await setup();
    receiver.respond = () => 500;
    const payment = await pay(t.url, who);
    const started = Date.now();
    while ((await notificationOf(payment.body.pspReference)).status !== "expired") {
      if (Date.now() - started > 15_000) throw new Error("never expired");
      await sleep(50);
    }
    const n = await notificationOf(payment.body.pspReference);
    // 12 scheduled retries, then every 8 h for the rest of the 30 days (2.6 s here).
    expect(n.deliveries).toBeGreaterThan(13);
    expect(n.nextAttemptAt).toBeNull();
  }, 30_000);
});

describe("the control API", () => {
  test("a forced delivery sends the same notification again: a duplicate", async () => {
    const { receiver, who } = await setup();
    const payment = await pay(t.url, who);
    await receiver.waitFor((items) => items.length >= 1);
    const n = await notificationOf(payment.body.pspReference);
    const res = await control(t.url, `/adyen/notifications/${n.id}/deliver`, {});
    expect(res.status).toBe(200);
    expect(res.body.attempt).toMatchObject({ status: 200, forced: true });
    expect(res.body.notification).toMatchObject({ status: "delivered", deliveries: 2 });
    expect(receiver.deliveries).toHaveLength(2);
    expect(receiver.deliveries[1]?.raw).toBe(receiver.deliveries[0]?.raw);
    expect((await control(t.url, "/adyen/notifications/ntf_none/deliver", {})).status).toBe(404);
  });

  test("a new HMAC key signs new notifications; queued ones keep the key they were signed with", async () => {
    await control(t.url, "/adyen/settings", { timeScale: 0.02 });
    const { account, receiver, who } = await setup();
    const oldKey = account.adyen.hmacKey;
    const newKey = "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF";
    let down = true;
    receiver.respond = () => (down ? 500 : 200);
    const first = await pay(t.url, who);
    await receiver.waitFor((items) => items.length >= 1);
    await updateMerchant(t.url, account.adyen.merchantAccount, { hmacKey: newKey });
    down = false;
    const second = await pay(t.url, who);
    const items = await receiver.waitFor((all) => all.filter((i) => i.pspReference === first.body.pspReference).length >= 2 && all.some((i) => i.pspReference === second.body.pspReference));
    const retried = items.filter((i) => i.pspReference === first.body.pspReference).at(-1);
    const fresh = items.find((i) => i.pspReference === second.body.pspReference);
    if (!retried || !fresh) throw new Error("missing deliveries");
    expect(hmacValid(retried, oldKey)).toBe(true);
    expect(hmacValid(fresh, newKey)).toBe(true);
    expect(hmacValid(fresh, oldKey)).toBe(false);
    // The receiver checked the old key; the new key's item is its one expected complaint.
    receiver.problems.splice(0, receiver.problems.length, ...receiver.problems.filter((p) => !p.includes(second.body.pspReference)));
  });

  test("the outbox lists notifications with their attempts, filtered", async () => {
    const { account, who } = await setup();
    const payment = await pay(t.url, who);
    await settled(t.url);
    const listed = await notifications(t.url, { merchantAccount: account.adyen.merchantAccount, eventCode: "AUTHORISATION" });
    expect(listed).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^ntf_/),
        eventCode: "AUTHORISATION",
        pspReference: payment.body.pspReference,
        originalReference: null,
        success: "true",
        status: "delivered",
        deliveries: 1,
        attempts: [expect.objectContaining({ status: 200, forced: false })],
        body: expect.objectContaining({ live: "false" }),
      }),
    ]);
  });

  test("bad settings and merchant changes are refused with the field named", async () => {
    expect((await control(t.url, "/adyen/settings", { timeScale: 2 })).body.error).toMatch(/timeScale/);
    expect((await control(t.url, "/adyen/settings", { speed: 1 })).body.error).toMatch(/Unknown field: speed/);
    const merchantAccount = t.sb.demo.adyen.merchantAccount;
    expect((await control(t.url, `/adyen/merchants/${merchantAccount}`, { webhookUrl: "ftp://x" })).body.error).toMatch(/webhookUrl/);
    expect((await control(t.url, `/adyen/merchants/${merchantAccount}`, { hmacKey: "xyz" })).body.error).toMatch(/hmacKey/);
    expect((await control(t.url, "/adyen/merchants/NoSuchMerchant")).status).toBe(404);
    const listed = (await control(t.url, "/adyen/merchants")).body;
    expect(listed.items.some((/** @type {{ merchantAccount: string }} */ m) => m.merchantAccount === merchantAccount)).toBe(true);
  });
});

describe("startSandbox's adyen options", () => {
  test("configure the demo merchant's webhook and capture delay and Adyen's clock, and are checked", async () => {
    await expect(startSandbox({ logger: false, adyen: { timeScale: 2 } })).rejects.toThrow(/timeScale/);
    await expect(startSandbox({ logger: false, adyen: { webhookUrl: "ftp://hooks.example" } })).rejects.toThrow(/webhookUrl/);
    const receiver = await webhookReceiver({ hmacKey: DEMO_ADYEN.hmacKey });
    receivers.push(receiver);
    const sb = await startSandbox({ logger: false, adyen: { webhookUrl: receiver.url, captureDelay: "manual", timeScale: 0.5, webhookTimeoutMs: 500 } });
    try {
      expect(sb.demo.adyen.webhookUrl).toBe(receiver.url);
      expect((await control(sb.url, "/adyen/settings")).body).toEqual({ timeScale: 0.5, webhookTimeoutMs: 500, processingDelayMs: 0 });
      const payment = await pay(sb.url, { keys: sb.demo.keys, merchant: sb.demo.adyen }, { manualCapture: false });
      expect((await control(sb.url, `/adyen/payments/${payment.body.pspReference}`)).body).toMatchObject({ captureMode: "manual", captured: 0 });
      await receiver.waitFor((items) => items.length >= 1);
      expect(receiver.deliveries[0]?.authorization).toBe(`Basic ${Buffer.from("adyen-webhook:demo-webhook-password").toString("base64")}`);
    } finally {
      await sb.close();
    }
  });
});
