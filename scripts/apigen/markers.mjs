// @ts-check
/**
 * Comment markers and descriptions, read the way the Kubernetes code generators read them.
 *
 * - `commentTags(lines)` is gengo's ExtractCommentTags("+", lines): every line that starts
 *   (after trimming spaces) with `+` is `+key=value` or `+key`; a key may repeat
 *   (`+listMapKey=a`, `+listMapKey=b`). `+k8s:required` is the key `k8s:required`, not
 *   `required`.
 * - `description(lines)` is kube-openapi's generateDescription (the same algorithm the swagger
 *   doc generator uses): lines after `---` are dropped, `TODO` and `+marker` lines skipped,
 *   blank lines keep paragraphs, indented lines keep their line breaks, the rest is joined with
 *   spaces.
 */

/**
 * @param {readonly string[]} lines
 * @returns {Map<string, string[]>}
 */
export function commentTags(lines) {
  /** @type {Map<string, string[]>} */
  const out = new Map();
  for (const raw of lines) {
    const line = raw.replace(/^ +| +$/g, "");
    if (line.length === 0 || !line.startsWith("+")) continue;
    const body = line.slice(1);
    const eq = body.indexOf("=");
    const key = eq < 0 ? body : body.slice(0, eq);
    const value = eq < 0 ? "" : body.slice(eq + 1);
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}

/**
 * @param {readonly string[]} lines
 * @returns {string}
 */
export function description(lines) {
  let buf = "";
  const delPrev = () => {
    if (buf.length > 0) buf = buf.slice(0, -1);
  };
  for (const raw of lines) {
    if (raw === "---") break;
    const line = raw.replace(/ +$/, "");
    const leading = line.replace(/^ +/, "");
    if (line.length === 0) {
      delPrev();
      buf += "\n\n";
    } else if (leading.startsWith("TODO")) {
      // one-line TODOs are dropped
    } else if (leading.startsWith("+")) {
      // generator instructions
    } else if (line.startsWith(" ") || line.startsWith("\t")) {
      delPrev();
      buf += `\n${line}\n`;
    } else {
      buf += `${line} `;
    }
  }
  return buf.trim();
}
