/**
 * Whether a URL's host is this machine: `localhost`, 127.0.0.0/8 or `::1`.
 * Judged on the host as the URL parser normalises it (`127.1` is
 * `127.0.0.1`), so a name that only looks local (`localhost.example`,
 * `127.0.0.1.nip.io`) is not loopback.
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}

/** The option that allows http to any host; for development only. */
export const ALLOW_INSECURE_URLS_OPTION = "allowInsecureUrls"

/**
 * Why `url` may not carry the service's keys, or undefined when it may: an
 * https URL, or http to a loopback host, where nothing crosses a network.
 * (Whether it is a URL at all is the schema's check.)
 */
export function insecureUrlProblem(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.protocol === "https:" || (parsed.protocol === "http:" && isLoopbackHost(parsed.hostname))) {
    return undefined
  }
  return `must be an https URL: keys and card data travel on it (http is accepted for localhost, 127.0.0.0/8 and ::1 only, or anywhere with ${ALLOW_INSECURE_URLS_OPTION}: true, which is for development and never for production)`
}
