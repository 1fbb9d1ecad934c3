/**
 * bench/apimachinery/selector: label selector matching (parsed once, converted from a
 * metav1.LabelSelector) beside re-parsing and a naive regex matcher, each kernel in its own
 * process (micro.ts).
 */
import { labelSelectorAsSelector, parseSelector } from "../../src/apimachinery/labels.js";
import { roundsFromEnv, type Benchmark } from "../harness.js";
import { kernelRole, microFigures } from "../micro.js";

/** Five requirements of every common kind: =, in (3 values), notin (2 values), exists, !key. */
const SELECTOR = "app=web,tier in (frontend,edge,cache),env notin (dev,test),app.kubernetes.io/managed-by,!canary";

/** 1,000 pod-like label sets, about a third of which match. */
function labelSets(): Array<Record<string, string>> {
  const tiers = ["frontend", "backend", "edge", "cache", "db"];
  const envs = ["prod", "staging", "dev", "test"];
  return Array.from({ length: 1000 }, (_, i) => {
    const ls: Record<string, string> = {
      app: i % 7 === 0 ? "api" : "web",
      tier: tiers[i % tiers.length],
      env: envs[i % envs.length],
      "pod-template-hash": `7f9c${i}`,
      "app.kubernetes.io/name": "web",
      "app.kubernetes.io/version": "1.2.3",
    };
    if (i % 5 !== 0) ls["app.kubernetes.io/managed-by"] = "kubeloop";
    if (i % 11 === 0) ls.canary = "true";
    return ls;
  });
}

/**
 * The naive baseline: what a hand-rolled matcher does — split the selector text at top-level
 * commas, then interpret each clause with regexes and string splits, on every match.
 */
function naiveMatch(selector: string, labels: Record<string, string>): boolean {
  const clauses: string[] = [];
  let depth = 0;
  let cur = "";
  for (const c of selector) {
    if (c === "(") depth++;
    if (c === ")") depth--;
    if (c === "," && depth === 0) {
      clauses.push(cur);
      cur = "";
    } else cur += c;
  }
  clauses.push(cur);
  for (const raw of clauses) {
    const clause = raw.trim();
    if (clause === "") continue;
    const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, k);
    let m: RegExpExecArray | null;
    if ((m = /^(\S+)\s+(in|notin)\s+\((.*)\)$/.exec(clause))) {
      const values = m[3].split(",").map((v) => v.trim());
      const inSet = has(m[1]) && values.includes(labels[m[1]]);
      if (m[2] === "in" ? !inSet : inSet) return false;
    } else if ((m = /^(\S+?)\s*(!=|==|=)\s*(\S*)$/.exec(clause))) {
      const eq = has(m[1]) && labels[m[1]] === m[3];
      if (m[2] === "!=" ? eq : !eq) return false;
    } else if (clause.startsWith("!")) {
      if (has(clause.slice(1).trim())) return false;
    } else if (!has(clause)) return false;
  }
  return true;
}

const sets = labelSets();
const sel = parseSelector(SELECTOR);
// A metav1.LabelSelector as controllers hold it: matchLabels + matchExpressions.
const converted = labelSelectorAsSelector({
  matchLabels: { app: "web" },
  matchExpressions: [
    { key: "tier", operator: "In", values: ["frontend", "edge", "cache"] },
    { key: "env", operator: "NotIn", values: ["dev", "test"] },
    { key: "app.kubernetes.io/managed-by", operator: "Exists" },
    { key: "canary", operator: "DoesNotExist" },
  ],
});
let sink = 0;
const loop = (match: (ls: Record<string, string>) => boolean) => () => {
  let i = 0;
  return () => {
    if (match(sets[i++ % sets.length])) sink++;
  };
};

/** Each matcher in a process of its own. */
export const roles = {
  kernel: kernelRole({
    parsed: loop((ls) => sel.matches(ls)),
    reparse: loop((ls) => parseSelector(SELECTOR).matches(ls)),
    naive: loop((ls) => naiveMatch(SELECTOR, ls)),
    converted: loop((ls) => converted.matches(ls)),
  }),
};
export const keep = () => sink;

const bench: Benchmark = {
  name: "apimachinery/selector",
  run() {
    // Both implementations must agree before their speeds mean anything.
    let matched = 0;
    for (const ls of sets) {
      if (sel.matches(ls) !== naiveMatch(SELECTOR, ls) || sel.matches(ls) !== converted.matches(ls)) throw new Error(`matchers disagree on ${JSON.stringify(ls)}`);
      if (sel.matches(ls)) matched++;
    }
    if (matched === 0 || matched === sets.length) throw new Error("benchmark data should match some sets, not all");
    const naive = "naive: split selector text with regexes on every match";
    return microFigures(import.meta.url, "apimachinery/selector", roundsFromEnv(), [
      {
        name: "label selector match, 5 requirements (=, in, notin, exists, !) — parsed once",
        unit: "matches/s",
        ours: "parsed",
        peer: "reparse",
        peerName: "re-parse the selector string on every match (parseSelector + matches)",
      },
      { name: "label selector match, 5 requirements — parsed once", unit: "matches/s", ours: "parsed", peer: "naive", peerName: naive },
      { name: "metav1.LabelSelector → Selector match, same 5 requirements", unit: "matches/s", ours: "converted", peer: "naive", peerName: naive },
    ]);
  },
};

export default bench;
