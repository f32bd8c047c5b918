/**
 * Source of `GET /client.js`, the script merchants include. It runs in the merchant's page, so
 * it is plain ES2017 in an IIFE, exposing only `window.ServiceScan.Form`.
 *
 * Protocol (all messages are objects with a `type` starting with "servicescan:"):
 *   frame → page   ready                       the frame listens; queued submissions are sent
 *   frame → page   resize { height }           the frame's content height in CSS pixels
 *   page  → frame  submit { formId, config }   submit the card under this client-made id
 *   frame → page   result { formId, responseCode }
 *   frame → page   error { message }           the frame could not be opened (bad key, origin)
 * The page accepts messages only from the sandbox origin and from its own iframe's window; the
 * frame accepts them only from the parent origin it was opened for and posts only to it.
 */

/** @param fallbackOrigin used when the browser cannot tell where the script came from */
export function clientScript(fallbackOrigin: string): string {
  return `/* ServiceScan hosted card form client (servicescan-sandbox) */
(function () {
  "use strict";
  if (window.ServiceScan && typeof window.ServiceScan.Form === "function") return;

  var FALLBACK_ORIGIN = ${JSON.stringify(fallbackOrigin)};
  var SANDBOX_ORIGIN = (function () {
    try {
      var src = document.currentScript && document.currentScript.src;
      if (src) return new URL(src).origin;
    } catch (e) { /* fall through */ }
    return FALLBACK_ORIGIN;
  })();
  var PREFIX = "servicescan:";
  var FAILURE_CODE = "889";
  var RESULT_TIMEOUT_MS = 30000;

  function typeError(message) {
    return new TypeError("ServiceScan.Form: " + message);
  }

  // crypto.randomUUID only exists in secure contexts; merchant test pages are not always one.
  function uuidv4() {
    var c = window.crypto;
    if (c && typeof c.randomUUID === "function") return c.randomUUID();
    var b = new Uint8Array(16);
    c.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = "";
    for (var i = 0; i < 16; i++) h += (b[i] + 0x100).toString(16).slice(1);
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function optionalString(config, name, max) {
    var value = config[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw typeError("config." + name + " must be a string");
    if (max !== undefined && value.length > max) {
      throw typeError("config." + name + " must be at most " + max + " characters (got " + value.length + ")");
    }
    return value;
  }

  function optionalBoolean(config, name) {
    var value = config[name];
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") throw typeError("config." + name + " must be a boolean");
    return value;
  }

  function readOptions(options) {
    if (!options || typeof options !== "object") {
      throw typeError("expected one argument, an object { key, config }");
    }
    if (typeof options.key !== "string" || options.key === "") {
      throw typeError("key is required: pass your shareable API key as a string");
    }
    var config = options.config;
    if (!config || typeof config !== "object") {
      throw typeError("config is required: pass an object, e.g. { uiVersion: 2, showExplanation: false, showResult: false }");
    }
    if (config.callback !== undefined && typeof config.callback !== "function") {
      throw typeError("config.callback must be a function (formId, responseCode) => void");
    }
    if (config.uiVersion !== undefined && (typeof config.uiVersion !== "number" || !(config.uiVersion >= 1))) {
      throw typeError("config.uiVersion must be a number (2 is recommended)");
    }
    return {
      key: options.key,
      callback: config.callback,
      uiVersion: config.uiVersion === undefined ? 2 : config.uiVersion,
      showExplanation: optionalBoolean(config, "showExplanation") === true,
      showResult: optionalBoolean(config, "showResult") === true,
      customerId: optionalString(config, "customerId", 50),
      id: optionalString(config, "id", 25),
      reportGroup: optionalString(config, "reportGroup")
    };
  }

  function Form(options) {
    var opts = readOptions(options);
    var iframe = null;
    var ready = false;
    var frameError = null;
    var queue = [];
    var pending = {};

    function deliver(formId, responseCode) {
      if (!pending[formId]) return;
      clearTimeout(pending[formId]);
      delete pending[formId];
      if (!opts.callback) return;
      try {
        opts.callback(formId, responseCode);
      } catch (err) {
        // A throwing merchant callback must not break the form; surface it asynchronously.
        setTimeout(function () { throw err; });
      }
    }

    function post(message) {
      iframe.contentWindow.postMessage(message, SANDBOX_ORIGIN);
    }

    function onMessage(event) {
      if (!iframe || event.origin !== SANDBOX_ORIGIN || event.source !== iframe.contentWindow) return;
      var data = event.data;
      if (!data || typeof data !== "object" || typeof data.type !== "string") return;
      if (data.type === PREFIX + "ready") {
        ready = true;
        while (queue.length) post(queue.shift());
      } else if (data.type === PREFIX + "resize") {
        if (typeof data.height === "number" && data.height > 0 && data.height < 4000) {
          iframe.style.height = Math.ceil(data.height) + "px";
        }
      } else if (data.type === PREFIX + "result") {
        if (typeof data.formId === "string") {
          deliver(data.formId, typeof data.responseCode === "string" ? data.responseCode : undefined);
        }
      } else if (data.type === PREFIX + "error") {
        frameError = String(data.message || "the card form could not be opened");
        if (window.console) console.error("ServiceScan: " + frameError);
        queue = [];
        Object.keys(pending).forEach(function (formId) { deliver(formId, FAILURE_CODE); });
      }
    }

    return {
      attach: function (element) {
        if (!element || element.nodeType !== 1) throw typeError("attach(element) needs an HTML element");
        if (iframe) throw new Error("ServiceScan.Form: this form is already attached");
        var params = new URLSearchParams({
          key: opts.key,
          origin: window.location.origin,
          ui: String(opts.uiVersion),
          explain: opts.showExplanation ? "1" : "0",
          result: opts.showResult ? "1" : "0"
        });
        iframe = document.createElement("iframe");
        iframe.title = "Secure card form";
        iframe.src = SANDBOX_ORIGIN + "/form/frame?" + params.toString();
        iframe.setAttribute("scrolling", "no");
        iframe.style.cssText = "border:0;width:100%;height:260px;display:block;overflow:hidden;";
        window.addEventListener("message", onMessage);
        element.appendChild(iframe);
      },
      getId: function () {
        if (!iframe) throw new Error("ServiceScan.Form: call attach(element) before getId()");
        var formId = uuidv4();
        pending[formId] = setTimeout(function () { deliver(formId, FAILURE_CODE); }, RESULT_TIMEOUT_MS);
        var message = {
          type: PREFIX + "submit",
          formId: formId,
          config: { customerId: opts.customerId, id: opts.id, reportGroup: opts.reportGroup }
        };
        if (frameError) setTimeout(function () { deliver(formId, FAILURE_CODE); });
        else if (ready) post(message);
        else queue.push(message);
        return formId;
      }
    };
  }

  window.ServiceScan = window.ServiceScan || {};
  window.ServiceScan.Form = Form;
})();
`;
}
