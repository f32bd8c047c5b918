/**
 * The message to show for a failed request. The JS SDK throws a `FetchError`
 * whose message is the server's own `message` field (Medusa's error body,
 * which our routes word for a merchant and which names the field at fault),
 * falling back to the HTTP status text; we keep that wording rather than a
 * generic "something went wrong".
 */
export function errorMessage(error: unknown, fallback = "The request failed. Try again."): string {
  if (error instanceof Error && error.message.trim()) {
    if (/failed to fetch|networkerror|load failed/i.test(error.message)) {
      return "The server could not be reached. Check your connection and try again."
    }
    return error.message
  }
  if (typeof error === "string" && error.trim()) {
    return error
  }
  return fallback
}

/** The HTTP status of a failed SDK call, when there was a response. */
export function errorStatus(error: unknown): number | undefined {
  if (error && typeof error === "object" && "status" in error) {
    const status = (error as { status: unknown }).status
    return typeof status === "number" ? status : undefined
  }
  return undefined
}
