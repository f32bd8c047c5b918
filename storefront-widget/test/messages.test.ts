import { describeResponseCode, serviceScanMessages, type ServiceScanMessages } from "../src/index";

// Every code the spec and Worldpay eProtect define, with a word its message must contain.
const CODES: [string, RegExp][] = [
  ["870", /complete/i],
  ["871", /card number isn't valid/i],
  ["872", /too short/i],
  ["873", /too long/i],
  ["874", /only contain digits/i],
  ["875", /couldn't secure/i],
  ["876", /card number isn't valid/i],
  ["881", /security code.*digits/i],
  ["882", /security code.*too short/i],
  ["883", /security code.*too long/i],
  ["886", /expiry date/i],
  ["889", /try again/i],
];

describe("describeResponseCode", () => {
  it.each(CODES)("describes %s in plain language", (code, pattern) => {
    const text = describeResponseCode(code);
    expect(text).toMatch(pattern);
    expect(text).toBe(serviceScanMessages[code as keyof ServiceScanMessages]);
    // Plain language: no raw codes or jargon shown to shoppers.
    expect(text).not.toMatch(/\d{3}|luhn|mod-?10|eprotect/i);
  });

  it("accepts numeric codes", () => {
    expect(describeResponseCode(871)).toBe(serviceScanMessages["871"]);
  });

  it.each(["877", "999", "", "abc", "unknown", "frameTitle", "toString", "constructor", null, undefined])(
    "falls back to the unknown message for %p",
    (code) => {
      expect(describeResponseCode(code)).toBe(serviceScanMessages.unknown);
    },
  );

  it("gives the number/CVV/expiry problems distinct messages", () => {
    const texts = ["871", "872", "873", "874", "881", "882", "883", "886"].map((c) => describeResponseCode(c));
    expect(new Set(texts).size).toBe(texts.length);
  });

  it("uses replacement messages (another language), falling back to English for missing keys", () => {
    const fr: Partial<ServiceScanMessages> = {
      871: "Ce numéro de carte n'est pas valide.",
      unknown: "Impossible de vérifier votre carte.",
    };
    expect(describeResponseCode("871", fr)).toBe("Ce numéro de carte n'est pas valide.");
    expect(describeResponseCode("999", fr)).toBe("Impossible de vérifier votre carte.");
    expect(describeResponseCode("886", fr)).toBe(serviceScanMessages["886"]);
  });

  it("accepts a full replacement table", () => {
    const upper = Object.fromEntries(
      Object.entries(serviceScanMessages).map(([k, v]) => [k, v.toUpperCase()]),
    ) as ServiceScanMessages;
    for (const [code] of CODES) expect(describeResponseCode(code, upper)).toBe(upper[code as keyof ServiceScanMessages]);
  });
});
