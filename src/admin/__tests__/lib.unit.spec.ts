import {
  chargebackStatusLabel,
  currencyDecimals,
  dueUrgency,
  formatDueDays,
  formatEvery,
  formatMoney,
  groundTruthLabel,
} from "../lib/format"
import { configurationAdvice, normalizeHealth } from "../lib/health"
import { chargebackListParams, dueBeforeParam, scanImageUrl } from "../lib/queries"
import { endOfLocalDay, isUuidV4, normalizeAmount, parseScanIds, validateRecordChargeback } from "../lib/validation"

const V4 = "9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61"

describe("formatMoney", () => {
  it("formats major units with the currency's own decimals", () => {
    expect(formatMoney(49.99, "eur", "en-US")).toBe("€49.99")
    expect(formatMoney("1250", "jpy", "en-US")).toBe("¥1,250")
    // Intl separates some symbols with a no-break space.
    expect(formatMoney(1.5, "kwd", "en-US").replace(/\u00a0/g, " ")).toBe("KWD 1.500")
    expect(formatMoney(10, "usd", "de-DE").replace(/\u00a0/g, " ")).toBe("10,00 $")
  })

  it("still shows the figure for an unknown currency and a dash for no amount", () => {
    expect(formatMoney(5, "e1", "en-US")).toBe("5 E1")
    expect(formatMoney(null, "eur")).toBe("–")
    expect(formatMoney("abc", "eur")).toBe("–")
  })

  it("knows how many decimals a currency has", () => {
    expect(currencyDecimals("EUR")).toBe(2)
    expect(currencyDecimals("jpy")).toBe(0)
    expect(currencyDecimals("KWD")).toBe(3)
  })

  // V8's CLDR data gives 0 for these; the payment provider (ISO 4217) counts
  // them in hundredths and thousandths, and so must the admin, in every browser.
  it.each([
    ["HUF", 2],
    ["idr", 2],
    ["COP", 2],
    ["IQD", 3],
    ["CLF", 4],
    ["XYZ", 2],
  ])("takes %s's decimals from ISO 4217 (%i), not from the browser's CLDR data", (code, decimals) => {
    expect(currencyDecimals(code)).toBe(decimals)
  })

  it("shows amounts with the ISO 4217 decimals, never rounded to CLDR's", () => {
    expect(formatMoney(12345.5, "huf", "en-US").replace(/\u00a0/g, " ")).toBe("HUF 12,345.50")
    expect(formatMoney("250000.75", "IDR", "en-US").replace(/\u00a0/g, " ")).toBe("IDR 250,000.75")
    expect(formatMoney(1.5, "iqd", "en-US").replace(/\u00a0/g, " ")).toBe("IQD 1.500")
  })
})

describe("ground truth", () => {
  it.each([
    ["valid", "Worth disputing", "valid"],
    ["invalid", "Likely true fraud", "invalid"],
    ["fraud", "Likely true fraud", "invalid"],
    ["FRAUD", "Likely true fraud", "invalid"],
  ])("%s reads as %s", (value, label, verdict) => {
    expect(groundTruthLabel(value)).toMatchObject({ label, verdict })
  })

  it("tells a missing verdict apart from one not reported", () => {
    expect(groundTruthLabel(null, false).label).toBe("Awaiting verdict")
    expect(groundTruthLabel(null, true).label).toBe("Not reported")
  })
})

describe("deadlines", () => {
  // Local times: deadlines are read in the admin's own time zone.
  const now = new Date(2025, 2, 10, 12, 0)
  it.each([
    [null, "none"],
    [new Date(2025, 2, 10, 11, 0), "overdue"],
    [new Date(2025, 2, 10, 23, 59), "today"],
    [new Date(2025, 2, 13, 23, 59), "soon"],
    [new Date(2025, 2, 14, 0, 1), "ok"],
  ])("%s is %s", (dueBy, urgency) => {
    expect(dueUrgency(dueBy, now)).toBe(urgency)
  })

  it("counts calendar days, not rounded hours", () => {
    expect(formatDueDays(new Date(2025, 2, 11, 23, 59), now, "en")).toBe("tomorrow")
    expect(formatDueDays(new Date(2025, 2, 12, 0, 30), now, "en")).toBe("in 2 days")
    expect(formatDueDays(new Date(2025, 2, 10, 18, 0), now, "en")).toBe("today")
    expect(formatDueDays(new Date(2025, 2, 8, 18, 0), now, "en")).toBe("2 days ago")
  })
})

it.each([
  [3 * 3_600_000, "every 3 hours"],
  [3_600_000, "every hour"],
  [90 * 60_000, "every 1.5 hours"],
  [10 * 60_000, "every 10 minutes"],
  [60_000, "every minute"],
  [30_000, "every 30 seconds"],
  [250, "every 250 ms"],
])("states a poll interval of %i ms as %s", (ms, text) => {
  expect(formatEvery(ms)).toBe(text)
})

it("labels every chargeback status and survives an unknown one", () => {
  expect(chargebackStatusLabel("evidence_ready")).toMatchObject({ label: "Evidence ready", color: "green" })
  expect(chargebackStatusLabel("no_evidence").label).toBe("No evidence")
  expect(chargebackStatusLabel("under_review").label).toBe("Under review")
})

describe("scan ids", () => {
  it("accepts only UUIDv4", () => {
    expect(isUuidV4(V4)).toBe(true)
    expect(isUuidV4(V4.toUpperCase())).toBe(true)
    expect(isUuidV4("6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe(false) // v1
    expect(isUuidV4("9b2f6c1e-3d4a-4f8b-c1c2-7e5d9f0b3a61")).toBe(false) // wrong variant
    expect(isUuidV4(`${V4}0`)).toBe(false)
  })

  it("parses pasted lists and names what is wrong", () => {
    expect(parseScanIds(`${V4}\n${V4.toUpperCase()};`)).toEqual({ ids: [V4], invalid: [], error: null })
    expect(parseScanIds("abc").error).toBe(
      '"abc" is not a valid scan id. Scan ids are UUIDv4, like 9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61.'
    )
    expect(parseScanIds("  ").error).toBe("Enter at least one scan id.")
  })
})

describe("record chargeback form", () => {
  const valid = {
    order_id: "order_1",
    external_id: "dp_1",
    amount: "10.50",
    currency_code: "eur",
    reason: "",
    reason_code: "",
    due_by: "",
  }

  it("passes a complete form", () => {
    expect(validateRecordChargeback(valid)).toEqual({})
  })

  it("names each bad field", () => {
    const errors = validateRecordChargeback({ ...valid, order_id: "", external_id: " ", amount: "-1", currency_code: "euro" })
    expect(Object.keys(errors).sort()).toEqual(["amount", "currency_code", "external_id", "order_id"])
    expect(validateRecordChargeback({ ...valid, amount: "100.5", currency_code: "jpy" }).amount).toBe(
      "JPY amounts have no decimals."
    )
    expect(validateRecordChargeback({ ...valid, amount: "0" }).amount).toMatch(/greater than zero/)
    expect(validateRecordChargeback({ ...valid, amount: "1e3" }).amount).toBeDefined()
  })

  it("accepts HUF and IQD amounts with the decimals the payment provider counts", () => {
    expect(validateRecordChargeback({ ...valid, amount: "12345.50", currency_code: "huf" })).toEqual({})
    expect(validateRecordChargeback({ ...valid, amount: "7.125", currency_code: "IQD" })).toEqual({})
    expect(validateRecordChargeback({ ...valid, amount: "12345.505", currency_code: "huf" }).amount).toBe(
      "HUF amounts have at most 2 decimals."
    )
  })

  it("takes one decimal point or, alone, a decimal comma", () => {
    expect(validateRecordChargeback({ ...valid, amount: "12,30" })).toEqual({})
    expect(normalizeAmount("12,30")).toBe("12.30")
    expect(validateRecordChargeback({ ...valid, amount: "1,5", currency_code: "kwd" })).toEqual({})
    expect(normalizeAmount("1,5")).toBe("1.5")
    expect(validateRecordChargeback({ ...valid, amount: "1.250", currency_code: "kwd" })).toEqual({})
    expect(normalizeAmount("1.250")).toBe("1.250")
  })

  it("refuses a comma that could be a thousands separator instead of reading it as decimals", () => {
    // "1,250" KWD was recorded as 1.250: a thousandth of a 1250 KWD dispute.
    expect(validateRecordChargeback({ ...valid, amount: "1,250", currency_code: "kwd" }).amount).toBe(
      'The comma in "1,250" could be a thousands separator or a decimal comma. Enter the disputed amount with digits and one decimal point, without thousands separators (like 1234.500).'
    )
    expect(validateRecordChargeback({ ...valid, amount: "1,250" }).amount).toMatch(/^The comma in "1,250"/)
    // Never handed to the server as decimals either.
    expect(normalizeAmount("1,250")).toBe("1,250")
  })

  it.each(["1,234.56", "1.234,56", "1,234,567", "1.234.567", "1 234.567,5"])(
    "refuses the grouped amount %j with a message naming the field",
    (amount) => {
      expect(validateRecordChargeback({ ...valid, amount }).amount).toBe(
        "Enter the disputed amount with digits and one decimal point, without thousands separators (like 1234.50)."
      )
    }
  )

  it("gives the example in the currency's own decimals", () => {
    expect(validateRecordChargeback({ ...valid, amount: "1,234", currency_code: "jpy" }).amount).toMatch(
      /\(like 1234\)\.$/
    )
  })

  it("keeps the amount a decimal string and the deadline the end of the local day", () => {
    expect(normalizeAmount(" 1 234,5 ")).toBe("1234.5")
    expect(endOfLocalDay("2025-04-30")).toBe(new Date(2025, 3, 30, 23, 59, 59, 999).toISOString())
  })
})

describe("list query", () => {
  it("sends only the filters that are set", () => {
    expect(chargebackListParams({ q: "  ", offset: 0, limit: 20 })).toEqual({ offset: 0, limit: 20 })
    expect(
      chargebackListParams({ status: "open", order_id: "order_1", q: " dp ", due_before: "2025-01-31", order: "due_by", offset: 40 })
    ).toEqual({
      status: "open",
      order_id: "order_1",
      q: "dp",
      due_before: new Date(2025, 1, 1).toISOString(),
      order: "due_by",
      offset: 40,
      limit: 20,
    })
  })

  it("passes a full date-time through", () => {
    expect(dueBeforeParam("2025-01-31T10:00:00Z")).toBe("2025-01-31T10:00:00Z")
  })
})

it("builds image URLs on the admin proxy", () => {
  expect(scanImageUrl(V4)).toBe(`/admin/servicescan/scans/${V4}/image`)
  expect(scanImageUrl(V4, { download: true })).toBe(`/admin/servicescan/scans/${V4}/image?download=1`)
})

describe("normalizeHealth", () => {
  it("reads the route's shape", () => {
    const health = normalizeHealth({
      health: {
        keys: { secret_key: true, webhook_secret: false },
        service: { base_url: "https://x.example", reachable: true, latency_ms: 12 },
        configuration_error: null,
        polling: { stopped: false, interval_ms: 1000, last_poll_at: "2025-01-01T00:00:00Z", pending_count: 3, counts: { pending: 2, to_submit: 1, submitting: 4 } },
        archive_images: false,
      },
    })
    expect(health).toMatchObject({
      keys: [
        { name: "secret_key", configured: true },
        { name: "webhook_secret", configured: false },
      ],
      base_url: "https://x.example",
      service: { reachable: true, latency_ms: 12, error: null },
      last_polled_at: "2025-01-01T00:00:00Z",
      pending_count: 3,
      needs_attention_count: 4,
      polling_stopped: false,
      poll_interval_ms: 1000,
      archive_images: false,
      configuration_error: null,
    })
  })

  it("keeps nothing of a key but whether it is set", () => {
    const health = normalizeHealth({ keys: { secret_key: "sk_live_x" } })
    expect(JSON.stringify(health)).not.toContain("sk_live_x")
    expect(health.keys).toEqual([{ name: "secret_key", label: "Disputes secret key", configured: true }])
  })

  it("has advice for each kind of configuration error", () => {
    expect(configurationAdvice(401)).toMatch(/no API key/)
    expect(configurationAdvice(403)).toMatch(/refused the secret key/)
    expect(configurationAdvice(null)).toMatch(/Set the secretKey option/)
  })
})
