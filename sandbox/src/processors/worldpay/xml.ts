import { XMLBuilder, XMLParser, XMLValidator } from "fast-xml-parser";

/**
 * The XML plumbing the two Worldpay APIs share (cnpAPI and the Chargeback API): one parser and
 * builders configured alike, so both read and write XML the same way.
 */

/** A parsed XML element: child elements by name, attributes as `@_name`, text as `#text`. */
export type XmlNode = Record<string, unknown>;

/** An element in fast-xml-parser's ordered form: `{ name: children, ":@": attributes }`. */
export type OrderedNode = Record<string, unknown>;

export const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  processEntities: true,
  htmlEntities: false,
});

export const xmlBuilder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  format: true,
  suppressEmptyNode: true,
  // Otherwise duplicate="true" is written as a bare `duplicate` attribute, which is not XML.
  suppressBooleanAttributes: false,
});

/**
 * For answers whose children must keep their order whatever their names: `<results_max10>` lists
 * original responses of several types in the order they happened.
 */
export const orderedXmlBuilder = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  format: true,
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
});

export const XML_DECLARATION = { "@_version": "1.0", "@_encoding": "UTF-8" } as const;

export function isXmlNode(value: unknown): value is XmlNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Why a body cannot be read as XML, or null when it can. DOCTYPEs are refused outright: entity
 * declarations are the classic XML bomb, and neither API ever needs one.
 */
export function xmlProblem(xml: string): string | null {
  if (/<!DOCTYPE/i.test(xml)) return "DOCTYPE declarations are not allowed";
  if (xml.trim() === "") return "the request body is empty";
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return `the XML is not well-formed: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`;
  return null;
}

/** Converts an element built in the plain form (attributes as `@_name`) to the ordered form. */
export function ordered(name: string, node: XmlNode | string): OrderedNode {
  if (typeof node === "string") return { [name]: [{ "#text": node }] };
  const attributes: Record<string, string> = {};
  const children: OrderedNode[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("@_")) attributes[key] = String(value);
    else if (key === "#text") children.push({ "#text": String(value) });
    else for (const item of Array.isArray(value) ? value : [value]) children.push(ordered(key, isXmlNode(item) ? item : String(item)));
  }
  return Object.keys(attributes).length > 0 ? { [name]: children, ":@": attributes } : { [name]: children };
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

const NEEDS_ESCAPE = /[&<>"]/;

function escapeXml(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/[&<>"]/g, (c) => ESCAPES[c] ?? c) : value;
}

/**
 * Writes a document from the plain form (attributes as `@_name`, arrays for repeated elements),
 * indented like the builders. Hand-rolled because the Chargeback API answers ten thousand cases
 * at once, where the generic builder spends seconds.
 */
export function renderXml(root: string, node: XmlNode): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  writeElement(out, root, node, "");
  return out.join("");
}

function writeElement(out: string[], name: string, value: unknown, indent: string): void {
  if (Array.isArray(value)) {
    for (const item of value) writeElement(out, name, item, indent);
    return;
  }
  if (!isXmlNode(value)) {
    out.push(`${indent}<${name}>${escapeXml(String(value))}</${name}>\n`);
    return;
  }
  let attributes = "";
  const children: [string, unknown][] = [];
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith("@_")) attributes += ` ${key.slice(2)}="${escapeXml(String(child))}"`;
    else children.push([key, child]);
  }
  if (children.length === 0) {
    out.push(`${indent}<${name}${attributes}/>\n`);
    return;
  }
  out.push(`${indent}<${name}${attributes}>\n`);
  for (const [key, child] of children) writeElement(out, key, child, `${indent}  `);
  out.push(`${indent}</${name}>\n`);
}
