/**
 * A small flow-layout writer over pdf-lib: text runs down the page and onto the
 * next one, tables repeat their header after a page break, and every string is
 * made encodable before it is measured or drawn.
 */
import { PDFDocument, PDFFont, PDFPage, PDFRef, RGB, StandardFonts, degrees, drawImage, rgb } from "pdf-lib"
import { toEncodable } from "./text"

export const PAGE_SIZES = {
  letter: [612, 792],
  a4: [595.28, 841.89],
} as const satisfies Record<string, readonly [number, number]>

export const COLORS = {
  text: rgb(0.11, 0.11, 0.13),
  muted: rgb(0.42, 0.42, 0.46),
  rule: rgb(0.8, 0.8, 0.83),
  shade: rgb(0.95, 0.95, 0.96),
  valid: rgb(0.05, 0.45, 0.22),
  invalid: rgb(0.7, 0.12, 0.12),
} satisfies Record<string, RGB>

/** No single value is drawn longer than this: a pasted novel in an item title must not fill pages. */
const MAX_VALUE_CHARS = 600

export type TextStyle = {
  size?: number
  bold?: boolean
  color?: RGB
  /** Extra left offset from the margin. */
  indent?: number
}

export type TableColumn = {
  header: string
  /** Share of the content width; the shares of a table add up to 1. */
  share: number
  align?: "left" | "right"
}

/** A cell is one value, or several lines (an address). */
export type TableCell = string | string[] | { lines: string[]; color?: RGB; bold?: boolean }

/**
 * An image XObject already in the document: what pdf-lib's `embedJpg` answers,
 * or a stream the pack wrote itself (a PNG's pixels, deflated once).
 */
export type EmbeddedImage = { ref: PDFRef; width: number; height: number }

export class PackWriter {
  readonly doc: PDFDocument
  readonly pages: PDFPage[] = []
  private readonly regular: PDFFont
  private readonly bold: PDFFont
  private readonly encodable: Set<number>
  private readonly pageSize: readonly [number, number]
  private page: PDFPage
  private y = 0

  readonly margin = { left: 54, right: 54, top: 56, bottom: 64 }

  private constructor(doc: PDFDocument, regular: PDFFont, bold: PDFFont, pageSize: readonly [number, number]) {
    this.doc = doc
    this.regular = regular
    this.bold = bold
    this.pageSize = pageSize
    // Both standard fonts encode WinAnsi; the intersection keeps that an assumption we do not make.
    const boldSet = new Set(bold.getCharacterSet())
    this.encodable = new Set(regular.getCharacterSet().filter((codePoint) => boldSet.has(codePoint)))
    this.page = this.addPage()
  }

  static async create(doc: PDFDocument, pageSize: readonly [number, number]): Promise<PackWriter> {
    const regular = await doc.embedFont(StandardFonts.Helvetica)
    const bold = await doc.embedFont(StandardFonts.HelveticaBold)
    return new PackWriter(doc, regular, bold, pageSize)
  }

  get contentWidth(): number {
    return this.pageSize[0] - this.margin.left - this.margin.right
  }

  /** Room left on the current page, in points. */
  get remaining(): number {
    return this.y - this.margin.bottom
  }

  get contentHeight(): number {
    return this.pageSize[1] - this.margin.top - this.margin.bottom
  }

  /** Any string made safe to draw: encodable, one line, bounded. */
  clean(text: string): string {
    const encodable = toEncodable(text, (codePoint) => this.encodable.has(codePoint))
    return encodable.length > MAX_VALUE_CHARS ? `${encodable.slice(0, MAX_VALUE_CHARS)}... (cut)` : encodable
  }

  private addPage(): PDFPage {
    const page = this.doc.addPage([this.pageSize[0], this.pageSize[1]])
    this.pages.push(page)
    this.y = this.pageSize[1] - this.margin.top
    return page
  }

  newPage(): void {
    this.page = this.addPage()
  }

  /** Moves to a new page unless `height` points still fit on this one. */
  ensure(height: number): void {
    if (height > this.remaining && this.y < this.pageSize[1] - this.margin.top) this.newPage()
  }

  space(points: number): void {
    this.y -= points
  }

  font(bold?: boolean): PDFFont {
    return bold ? this.bold : this.regular
  }

  width(text: string, size: number, bold?: boolean): number {
    return this.font(bold).widthOfTextAtSize(text, size)
  }

  /** Wraps already-clean text at spaces; a word wider than the line is broken between characters. */
  wrap(text: string, size: number, maxWidth: number, bold?: boolean): string[] {
    if (text === "") return [""]
    const lines: string[] = []
    let line = ""
    for (const word of text.split(" ")) {
      const candidate = line === "" ? word : `${line} ${word}`
      if (this.width(candidate, size, bold) <= maxWidth) {
        line = candidate
        continue
      }
      if (line !== "") lines.push(line)
      line = ""
      let rest = word
      while (this.width(rest, size, bold) > maxWidth) {
        // The longest prefix that fits (at least one character, so this always advances).
        let low = 1
        let high = rest.length - 1
        while (low < high) {
          const middle = Math.ceil((low + high) / 2)
          if (this.width(rest.slice(0, middle), size, bold) <= maxWidth) low = middle
          else high = middle - 1
        }
        lines.push(rest.slice(0, low))
        rest = rest.slice(low)
      }
      line = rest
    }
    lines.push(line)
    return lines
  }

  private drawLine(text: string, x: number, size: number, style: { bold?: boolean; color?: RGB }): void {
    if (text === "") return
    this.page.drawText(text, { x, y: this.y - size, size, font: this.font(style.bold), color: style.color ?? COLORS.text })
  }

  /** A paragraph that may continue on the next page. */
  paragraph(text: string, style: TextStyle = {}): void {
    const size = style.size ?? 10
    const indent = style.indent ?? 0
    const leading = size * 1.35
    for (const line of this.wrap(this.clean(text), size, this.contentWidth - indent, style.bold)) {
      this.ensure(leading)
      this.drawLine(line, this.margin.left + indent, size, style)
      this.y -= leading
    }
  }

  /** Height of `paragraph(text, style)`. */
  paragraphHeight(text: string, style: TextStyle = {}): number {
    const size = style.size ?? 10
    return this.wrap(this.clean(text), size, this.contentWidth - (style.indent ?? 0), style.bold).length * size * 1.35
  }

  /**
   * A section title with a rule under it (level 1) or a sub-title (level 2).
   * `keepWithNext` is the height of what must follow it on the same page, so a
   * title is never left alone at the foot of a page.
   */
  heading(text: string, level: 1 | 2 = 1, keepWithNext = 60): void {
    const size = level === 1 ? 14 : 11
    this.ensure((level === 1 ? 10 + size * 1.3 + 8 : 6 + size * 1.3 + 3) + keepWithNext)
    this.space(level === 1 ? 10 : 6)
    this.drawLine(this.clean(text), this.margin.left, size, { bold: true })
    this.y -= size * 1.3
    if (level === 1) {
      this.page.drawLine({
        start: { x: this.margin.left, y: this.y },
        end: { x: this.margin.left + this.contentWidth, y: this.y },
        thickness: 0.75,
        color: COLORS.rule,
      })
      this.y -= 8
    } else {
      this.y -= 3
    }
  }

  /** Label and value rows; a missing value reads "not recorded" rather than vanishing. */
  keyValues(rows: [label: string, value: string | string[] | null, style?: { bold?: boolean; color?: RGB }][], labelWidth = 150): void {
    const size = 9.5
    const leading = size * 1.35
    const valueWidth = this.contentWidth - labelWidth
    for (const [label, value, style] of rows) {
      const values = value === null ? ["not recorded"] : Array.isArray(value) ? value : [value]
      const lines = values.flatMap((entry) => this.wrap(this.clean(entry), size, valueWidth - 6, style?.bold))
      const labelLines = this.wrap(this.clean(label), size, labelWidth - 8, true)
      const height = Math.max(lines.length, labelLines.length) * leading + 3
      this.ensure(height)
      const top = this.y
      labelLines.forEach((line, index) => {
        this.y = top - index * leading
        this.drawLine(line, this.margin.left, size, { bold: true, color: COLORS.muted })
      })
      lines.forEach((line, index) => {
        this.y = top - index * leading
        this.drawLine(line, this.margin.left + labelWidth, size, {
          bold: style?.bold,
          color: value === null ? COLORS.muted : style?.color,
        })
      })
      this.y = top - height
    }
  }

  /** A table whose header row is drawn again at the top of each page it runs onto. */
  table(columns: TableColumn[], rows: TableCell[][], options: { size?: number } = {}): void {
    const size = options.size ?? 9
    const leading = size * 1.3
    const padding = 4
    const widths = columns.map((column) => column.share * this.contentWidth)
    const wrapCell = (cell: TableCell, index: number, bold?: boolean): string[] => {
      const lines = typeof cell === "string" ? [cell] : Array.isArray(cell) ? cell : cell.lines
      const wrapped = lines.flatMap((line) => this.wrap(this.clean(line), size, widths[index] - 2 * padding, bold))
      return wrapped.length ? wrapped : [""]
    }
    const header = columns.map((column, index) => wrapCell(column.header, index, true))
    const headerHeight = Math.max(...header.map((lines) => lines.length)) * leading + 2 * padding

    const drawRow = (cells: string[][], height: number, style: { bold?: boolean; shade?: boolean; colors?: (RGB | undefined)[] }) => {
      if (style.shade) {
        this.page.drawRectangle({ x: this.margin.left, y: this.y - height, width: this.contentWidth, height, color: COLORS.shade })
      }
      let x = this.margin.left
      const top = this.y
      cells.forEach((lines, index) => {
        lines.forEach((line, lineIndex) => {
          this.y = top - padding - lineIndex * leading
          const lineWidth = this.width(line, size, style.bold)
          const left = columns[index].align === "right" ? x + widths[index] - padding - lineWidth : x + padding
          this.drawLine(line, left, size, { bold: style.bold, color: style.colors?.[index] })
        })
        x += widths[index]
      })
      this.y = top - height
      this.page.drawLine({
        start: { x: this.margin.left, y: this.y },
        end: { x: this.margin.left + this.contentWidth, y: this.y },
        thickness: 0.4,
        color: COLORS.rule,
      })
    }

    const drawHeader = () => drawRow(header, headerHeight, { bold: true, shade: true })
    this.ensure(headerHeight + leading + 2 * padding)
    drawHeader()
    for (const row of rows) {
      const cells = row.map((cell, index) => wrapCell(cell, index, typeof cell === "object" && !Array.isArray(cell) ? cell.bold : false))
      const height = Math.max(...cells.map((lines) => lines.length)) * leading + 2 * padding
      if (height > this.remaining) {
        this.newPage()
        drawHeader()
      }
      drawRow(cells, height, {
        colors: row.map((cell) => (typeof cell === "object" && !Array.isArray(cell) ? cell.color : undefined)),
        bold: false,
      })
    }
  }

  /** The size `image(image, maxHeight)` draws at: the content width and `maxHeight` at most, keeping the aspect ratio. */
  imageBox(image: EmbeddedImage, maxHeight: number): { width: number; height: number } {
    const scale = Math.min(this.contentWidth / image.width, maxHeight / image.height, 1.5)
    return { width: image.width * scale, height: image.height * scale }
  }

  /** Draws an image (see `imageBox`), on a new page if it does not fit here. */
  image(image: EmbeddedImage, maxHeight: number): { width: number; height: number } {
    const { width, height } = this.imageBox(image, maxHeight)
    this.ensure(height + 4)
    this.page.drawRectangle({
      x: this.margin.left - 0.5,
      y: this.y - height - 0.5,
      width: width + 1,
      height: height + 1,
      borderColor: COLORS.rule,
      borderWidth: 0.5,
    })
    // What `PDFPage.drawImage` does, by reference: it takes only pdf-lib's own image objects.
    const name = this.page.node.newXObject("Image", image.ref)
    this.page.pushOperators(
      ...drawImage(name, { x: this.margin.left, y: this.y - height, width, height, rotate: degrees(0), xSkew: degrees(0), ySkew: degrees(0) })
    )
    this.y -= height + 6
    return { width, height }
  }

  /** Running header and footer on every page; drawn last, once the page count is known. */
  finish(header: string, footerLeft: string): void {
    const size = 8
    const total = this.pages.length
    const headerText = this.wrap(this.clean(header), size, this.contentWidth)[0]
    const footerText = this.wrap(this.clean(footerLeft), size, this.contentWidth - 80)[0]
    this.pages.forEach((page, index) => {
      const [pageWidth, pageHeight] = this.pageSize
      page.drawText(headerText, {
        x: this.margin.left,
        y: pageHeight - this.margin.top + 22,
        size,
        font: this.regular,
        color: COLORS.muted,
      })
      page.drawLine({
        start: { x: this.margin.left, y: this.margin.bottom - 18 },
        end: { x: pageWidth - this.margin.right, y: this.margin.bottom - 18 },
        thickness: 0.4,
        color: COLORS.rule,
      })
      page.drawText(footerText, { x: this.margin.left, y: this.margin.bottom - 30, size, font: this.regular, color: COLORS.muted })
      const pageLabel = `Page ${index + 1} of ${total}`
      page.drawText(pageLabel, {
        x: pageWidth - this.margin.right - this.regular.widthOfTextAtSize(pageLabel, size),
        y: this.margin.bottom - 30,
        size,
        font: this.regular,
        color: COLORS.muted,
      })
    })
  }
}
