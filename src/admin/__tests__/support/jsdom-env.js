/**
 * jsdom, plus the WHATWG fetch classes from Node. jest-environment-jsdom 29
 * exposes neither `fetch` nor `Request`/`Response`/`Headers`, and the admin's
 * SDK (`@medusajs/js-sdk`) needs all of them; the specs then replace `fetch`
 * itself with a stub, so the network is mocked at the fetch boundary and
 * everything above it (SDK, React Query, components) is the real code.
 *
 * Used through a `@jest-environment` docblock, because the root jest config
 * runs unit specs in Node and is shared with the server's specs.
 */
const { TestEnvironment } = require("jest-environment-jsdom")

const FROM_NODE = [
  "fetch",
  "Headers",
  "Request",
  "Response",
  "FormData",
  "Blob",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "TextEncoder",
  "TextDecoder",
  "structuredClone",
]

class JsdomWithFetchEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context)
    for (const name of FROM_NODE) {
      if (typeof this.global[name] === "undefined" && typeof globalThis[name] !== "undefined") {
        this.global[name] = globalThis[name]
      }
    }
  }
}

module.exports = JsdomWithFetchEnvironment
