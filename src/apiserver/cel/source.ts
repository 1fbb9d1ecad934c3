/**
 * Source positions and compile issues, printed as cel-go's Issues.String() prints them:
 *
 *   ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(int, bool)'
 *    | self == true
 *    | .....^
 *
 * Lines and columns are 1-based; columns count code points, as cel-go's do.
 */

export interface Issue {
  offset: number;
  message: string;
}

export class Source {
  private readonly lineStarts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === "\n") this.lineStarts.push(i + 1);
  }

  location(offset: number): { line: number; column: number } {
    let line = 0;
    while (line + 1 < this.lineStarts.length && this.lineStarts[line + 1] <= offset) line++;
    const start = this.lineStarts[line];
    return { line: line + 1, column: [...this.text.slice(start, offset)].length };
  }

  lineText(line: number): string {
    const start = this.lineStarts[line - 1];
    const end = line < this.lineStarts.length ? this.lineStarts[line] - 1 : this.text.length;
    return this.text.slice(start, end);
  }
}

/** The display string of one issue (common.Error.ToDisplayString). */
export function displayIssue(src: Source, issue: Issue): string {
  const { line, column } = src.location(issue.offset);
  let out = `ERROR: <input>:${line}:${column + 1}: ${issue.message}`;
  const text = src.lineText(line);
  if (text !== undefined) {
    const snippet = text.replace(/\t/g, " ");
    const chars = [...snippet];
    // Characters wider than one UTF-8 byte get full-width markers so the caret lines up.
    const wide = (ch: string | undefined) => ch !== undefined && (ch.codePointAt(0) ?? 0) > 0x7f;
    const dots = chars.slice(0, column).map((ch) => (wide(ch) ? "\uff0e" : ".")).join("");
    const caret = wide(chars[column]) ? "\uff3e" : "^";
    out += `\n | ${snippet}\n | ${dots}${caret}`;
  }
  return out;
}

/** Issues.String(): every issue, sorted by position, separated by newlines. */
export function formatIssues(src: Source, issues: readonly Issue[]): string {
  const sorted = [...issues].sort((a, b) => a.offset - b.offset);
  return sorted.map((i) => displayIssue(src, i)).join("\n");
}

/** Compilation failed: the issues (parse or check) of one expression. */
export class CompileError extends Error {
  constructor(
    readonly source: Source,
    readonly issues: readonly Issue[],
  ) {
    super(formatIssues(source, issues));
    this.name = "CompileError";
  }
}
