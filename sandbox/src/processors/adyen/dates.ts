/**
 * Adyen writes times as ISO 8601 with the offset of its platform's zone and no fraction
 * ("2021-01-01T01:00:00+01:00"). The sandbox writes them in Amsterdam time so that receivers meet a
 * non-UTC offset, as they will against the real service.
 */
const ZONE = "Europe/Amsterdam";

const formatter = new Intl.DateTimeFormat("en-GB", {
  timeZone: ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
  timeZoneName: "longOffset",
});

export function adyenDateTime(at: Date | number = new Date()): string {
  const date = typeof at === "number" ? new Date(at) : at;
  const parts = Object.fromEntries(formatter.formatToParts(date).map((p) => [p.type, p.value]));
  // longOffset reads "GMT+01:00", or plain "GMT" at offset zero.
  const offset = /^GMT([+-]\d{2}:\d{2})$/.exec(parts.timeZoneName ?? "")?.[1] ?? "+00:00";
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
