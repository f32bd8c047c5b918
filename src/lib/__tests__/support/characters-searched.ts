/**
 * Characters searched by `indexOf`, `lastIndexOf` and RegExp `exec` (which
 * `test`, `match` and `replace` go through) while `run` runs: a parser's
 * scanning work, counted instead of timed, so that a spec can tell linear
 * from quadratic without a clock. The built-ins are restored afterwards.
 */
export function charactersSearched(run: () => void): number {
  const indexOf = String.prototype.indexOf
  const lastIndexOf = String.prototype.lastIndexOf
  const exec = RegExp.prototype.exec
  let searched = 0
  String.prototype.indexOf = function (this: string, search: string, position?: number): number {
    const from = Math.min(Math.max(position ?? 0, 0), this.length)
    const at = indexOf.call(this, search, position)
    searched += (at < 0 ? this.length : at) - from
    return at
  }
  String.prototype.lastIndexOf = function (this: string, search: string, position?: number): number {
    const from = Math.min(Math.max(position ?? this.length, 0), this.length)
    const at = lastIndexOf.call(this, search, position)
    searched += from - (at < 0 ? 0 : at)
    return at
  }
  RegExp.prototype.exec = function (this: RegExp, input: string): RegExpExecArray | null {
    const from = this.global || this.sticky ? this.lastIndex : 0
    const match = exec.call(this, input)
    searched += Math.max(0, (match ? match.index + match[0].length : String(input).length) - from)
    return match
  }
  try {
    run()
  } finally {
    String.prototype.indexOf = indexOf
    String.prototype.lastIndexOf = lastIndexOf
    RegExp.prototype.exec = exec
  }
  return searched
}
