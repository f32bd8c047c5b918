export * from "./client"
export * from "./errors"
export { BodyTooLargeError, HttpProtocolError } from "./streamed-get"
export type { StreamedBody } from "./streamed-get"
