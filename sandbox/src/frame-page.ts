import * as crypto from "node:crypto";
import { checkKey, originAllowed } from "./auth";
import { sendBody } from "./http";
import type { Context } from "./server";
import { TEST_CARDS } from "./test-cards";

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that is safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** @returns the origin, when `raw` is exactly an http(s) origin */
export function parseOrigin(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if ((url.protocol === "http:" || url.protocol === "https:") && url.origin === raw) return url.origin;
  } catch {
    // not an origin
  }
  return null;
}

const STYLE = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #5b6470; --line: #c5ccd5; --focus: #2f6fde; --bad: #b42318; }
* { box-sizing: border-box; }
html, body { margin: 0; background: transparent; }
body { font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); padding: 2px; }
.field { display: flex; flex-direction: column; gap: 4px; margin-bottom: 10px; flex: 1; min-width: 0; }
.row { display: flex; gap: 12px; }
label { font-weight: 600; font-size: 13px; }
input, select { font: inherit; padding: 9px 10px; border: 1px solid var(--line); border-radius: 6px; width: 100%; background: #fff; color: inherit; }
input:focus-visible, select:focus-visible, button:focus-visible { outline: 2px solid var(--focus); outline-offset: 1px; }
input[aria-invalid="true"] { border-color: var(--bad); }
.hint { color: var(--muted); font-size: 13px; margin: 0 0 10px; }
.error { color: var(--bad); font-size: 13px; margin: 0; min-height: 0; }
.error:empty { display: none; }
.scan { display: flex; gap: 8px; align-items: flex-end; margin-bottom: 6px; }
.scan .field { margin-bottom: 0; }
button { font: inherit; font-weight: 600; padding: 9px 14px; border-radius: 6px; border: 1px solid var(--ink); background: var(--ink); color: #fff; cursor: pointer; white-space: nowrap; }
#status { color: var(--muted); font-size: 13px; margin: 6px 0 0; }
#alert:empty, #status:empty { display: none; }
#alert { color: var(--bad); font-size: 13px; margin: 6px 0 0; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.ui-1 input, .ui-1 select, .ui-1 button { border-radius: 0; }
`;

/**
 * The script of the frame; it reads its settings from the JSON block and talks to exactly one
 * parent origin.
 */
const SCRIPT = `
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("servicescan-config").textContent);
  var form = document.getElementById("card-form");
  var fields = {
    number: document.getElementById("cc-number"),
    expiry: document.getElementById("cc-exp"),
    cvv: document.getElementById("cc-csc")
  };
  var alertBox = document.getElementById("alert");
  var statusBox = document.getElementById("status");
  var chooser = document.getElementById("test-card");
  var scanned = false;

  var MESSAGES = {
    "871": ["number", "This card number is not valid. Check the digits."],
    "872": ["number", "This card number is too short."],
    "873": ["number", "This card number is too long."],
    "874": ["number", "The card number may only contain digits."],
    "881": ["cvv", "The security code may only contain digits."],
    "882": ["cvv", "The security code is too short."],
    "883": ["cvv", "The security code is too long."],
    "886": ["expiry", "The expiry date is invalid or in the past. Use MM/YY."],
    "889": [null, "The card could not be submitted. Please try again."]
  };

  function send(message) {
    window.parent.postMessage(message, cfg.parentOrigin);
  }

  function clearErrors() {
    alertBox.textContent = "";
    alertBox.className = "";
    Object.keys(fields).forEach(function (name) {
      fields[name].removeAttribute("aria-invalid");
      document.getElementById(fields[name].id + "-error").textContent = "";
    });
  }

  function showOutcome(code) {
    var entry = MESSAGES[code];
    if (entry) {
      if (entry[0]) {
        var input = fields[entry[0]];
        input.setAttribute("aria-invalid", "true");
        document.getElementById(input.id + "-error").textContent = entry[1];
        // The field shows the message; the alert region only has to announce it.
        alertBox.className = "sr-only";
      }
      alertBox.textContent = entry[1];
    } else if (code === "870" && cfg.showResult) {
      statusBox.textContent = "Card details accepted.";
    }
  }

  function submit(formId, config) {
    clearErrors();
    var body = {
      key: cfg.key,
      origin: cfg.parentOrigin,
      formId: formId,
      scanned: scanned,
      config: config || {},
      card: { number: fields.number.value, cvv: fields.cvv.value, expiry: fields.expiry.value }
    };
    fetch("/api/v1/forms", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "omit"
    })
      .then(function (response) {
        return response.json().then(function (json) {
          return response.ok && typeof json.responseCode === "string" ? json.responseCode : "889";
        });
      })
      .catch(function () { return "889"; })
      .then(function (code) {
        showOutcome(code);
        send({ type: "servicescan:result", formId: formId, responseCode: code });
      });
  }

  window.addEventListener("message", function (event) {
    if (event.origin !== cfg.parentOrigin || event.source !== window.parent) return;
    var data = event.data;
    if (!data || data.type !== "servicescan:submit" || typeof data.formId !== "string") return;
    var config = data.config && typeof data.config === "object" ? data.config : {};
    submit(data.formId, {
      customerId: config.customerId,
      id: config.id,
      reportGroup: config.reportGroup
    });
  });

  // Enter in a field should not navigate the frame: the merchant page decides when to submit.
  form.addEventListener("submit", function (event) { event.preventDefault(); });

  fields.number.addEventListener("input", function () {
    if (scanned) {
      scanned = false;
      statusBox.textContent = "";
    }
  });

  document.getElementById("scan").addEventListener("click", function () {
    var option = chooser.options[chooser.selectedIndex];
    var number = option.value;
    var now = new Date();
    var month = ("0" + (now.getMonth() + 1)).slice(-2);
    var year = String((now.getFullYear() + 3) % 100);
    fields.number.value = number.replace(/(\\d{4})(?=\\d)/g, "$1 ");
    fields.expiry.value = month + "/" + ("0" + year).slice(-2);
    fields.cvv.value = /^3[47]/.test(number) ? "1234" : "123";
    scanned = true;
    clearErrors();
    statusBox.textContent = "Card scanned: " + option.getAttribute("data-brand") + " ending " + number.slice(-4) + ".";
  });

  function reportHeight() {
    send({ type: "servicescan:resize", height: document.documentElement.scrollHeight });
  }
  if (typeof ResizeObserver === "function") new ResizeObserver(reportHeight).observe(document.body);
  reportHeight();
  send({ type: "servicescan:ready" });
})();
`;

function formHtml(
  options: { key: string; parentOrigin: string; uiVersion: string; showExplanation: boolean; showResult: boolean },
  nonce: string,
): string {
  const config = { key: options.key, parentOrigin: options.parentOrigin, showResult: options.showResult };
  const cards = TEST_CARDS.map(
    (c) => `<option value="${c.number}" data-brand="${escapeHtml(c.brand)}">${escapeHtml(`${c.brand} ${c.number.slice(-4)} (${c.outcome})`)}</option>`,
  ).join("\n        ");
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Secure card form</title>
  <style nonce="${nonce}">${STYLE}</style>
</head>
<body class="ui-${options.uiVersion === "1" ? "1" : "2"}">
  <form id="card-form" novalidate>
    ${options.showExplanation ? '<p class="hint">Your card details are sent straight to ServiceScan; the shop never sees them. Use "Scan card" to scan your card instead of typing it.</p>' : ""}
    <div class="field">
      <label for="cc-number">Card number</label>
      <input id="cc-number" name="cardnumber" type="text" autocomplete="cc-number" inputmode="numeric" spellcheck="false" aria-describedby="cc-number-error">
      <p class="error" id="cc-number-error"></p>
    </div>
    <div class="row">
      <div class="field">
        <label for="cc-exp">Expiry date (MM/YY)</label>
        <input id="cc-exp" name="exp-date" type="text" autocomplete="cc-exp" inputmode="numeric" placeholder="MM/YY" aria-describedby="cc-exp-error">
        <p class="error" id="cc-exp-error"></p>
      </div>
      <div class="field">
        <label for="cc-csc">Security code</label>
        <input id="cc-csc" name="cvc" type="text" autocomplete="cc-csc" inputmode="numeric" aria-describedby="cc-csc-error">
        <p class="error" id="cc-csc-error"></p>
      </div>
    </div>
    <div class="scan">
      <div class="field">
        <label for="test-card">Test card to scan</label>
        <select id="test-card">
        ${cards}
        </select>
      </div>
      <button type="button" id="scan">Scan card</button>
    </div>
    <p id="status" role="status" aria-live="polite"></p>
    <p id="alert" role="alert"></p>
  </form>
  <script type="application/json" id="servicescan-config">${scriptJson(config)}</script>
  <script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}

/** An error page shown inside the merchant's iframe, telling the page why the form is missing. */
function errorHtml(title: string, detail: string, parentOrigin: string | null, nonce: string): string {
  const notify = parentOrigin
    ? `<script nonce="${nonce}">window.parent.postMessage({ type: "servicescan:error", message: ${scriptJson(`${title}: ${detail}`)} }, ${scriptJson(parentOrigin)});</script>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escapeHtml(title)}</title>
  <style nonce="${nonce}">body { font: 14px/1.4 system-ui, sans-serif; color: #b42318; margin: 8px; } h1 { font-size: 15px; margin: 0 0 4px; } p { margin: 0; color: #1b1f24; }</style>
</head>
<body>
  <div role="alert"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></div>
  ${notify}
</body>
</html>
`;
}

function csp(nonce: string, frameAncestor: string | null): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    ...(frameAncestor ? [`frame-ancestors ${frameAncestor}`] : []),
  ].join("; ");
}

/** `GET /form/frame?key=…&origin=…`: the card form, framable only by the registered parent origin. */
export function framePage(ctx: Context): void {
  const q = ctx.url.searchParams;
  const nonce = crypto.randomBytes(16).toString("base64");
  const parentOrigin = parseOrigin(q.get("origin"));
  const fail = (status: number, title: string, detail: string) =>
    sendBody(ctx.res, status, errorHtml(title, detail, parentOrigin, nonce), "text/html; charset=utf-8", {
      "Content-Security-Policy": csp(nonce, null),
      "Cache-Control": "no-store",
    });

  const key = q.get("key");
  if (!key) return fail(400, "Card form unavailable", "The key parameter is missing.");
  if (!parentOrigin) return fail(400, "Card form unavailable", "The origin parameter must be the page origin, like https://shop.example.");
  const check = checkKey(ctx.store, key, "form:submit");
  if (!check.ok) return fail(403, "Card form unavailable", `This key cannot open the card form: ${check.message}.`);
  if (!originAllowed(check.account, parentOrigin)) {
    return fail(403, "Card form unavailable", `${parentOrigin} is not a registered domain of this account.`);
  }
  const html = formHtml(
    {
      key,
      parentOrigin,
      uiVersion: q.get("ui") ?? "2",
      showExplanation: q.get("explain") === "1",
      showResult: q.get("result") === "1",
    },
    nonce,
  );
  sendBody(ctx.res, 200, html, "text/html; charset=utf-8", {
    "Content-Security-Policy": csp(nonce, parentOrigin),
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
  });
}
