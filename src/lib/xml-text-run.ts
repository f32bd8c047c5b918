/**
 * The longest stretch of an XML answer between two `<` (one tag and the text
 * that follows it) that the plugin hands to fast-xml-parser, in characters.
 *
 * Worldpay's longest free text is a case note of at most 4,000 characters;
 * 64 KiB is sixteen times that. The bound is what keeps parsing linear:
 * fast-xml-parser builds a text one character at a time, so its cost per
 * character grows with the length of the run (a 1 MiB run costs it about
 * four times as much per character as a 64 KiB one), and a single run of
 * many megabytes held the event loop for seconds.
 */
export const MAX_XML_TEXT_RUN = 64 * 1024

/**
 * Measures the runs of a document fed in pieces, in one pass: each piece is
 * searched once for `<`, whatever the pieces' sizes.
 */
export class XmlTextRunMeter {
  /** Characters since the last `<` (across pieces). */
  private run = 0
  /** Characters fed so far. */
  private offset = 0

  constructor(private readonly max = MAX_XML_TEXT_RUN) {}

  /**
   * Feeds the next piece.
   * @returns where the first run longer than the bound starts (a character
   * offset in the whole document), or undefined while every run is within it.
   */
  feed(text: string): number | undefined {
    let from = 0
    for (;;) {
      const lt = text.indexOf("<", from)
      const end = lt < 0 ? text.length : lt
      this.run += end - from
      if (this.run > this.max) {
        return this.offset + end - this.run
      }
      if (lt < 0) {
        this.offset += text.length
        return undefined
      }
      // The `<` itself belongs to the run it opens.
      this.run = 1
      from = lt + 1
    }
  }
}

/**
 * Where the first run of `xml` longer than `max` characters starts, or
 * undefined when there is none. Linear in the length of `xml`.
 */
export function overlongXmlTextRun(xml: string, max = MAX_XML_TEXT_RUN): number | undefined {
  return new XmlTextRunMeter(max).feed(xml)
}
