export * from "./client"
export * from "./errors"
export { setHttpDispatcher, STREAM_HIGH_WATER_BYTES } from "./exchange"
export type { StreamedBody } from "./exchange"
