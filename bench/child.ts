/** Entry point of every benchmark process: `node child.js <bench module> <role>` (see proc.ts). */
import { serveRole } from "./proc.js";

const [modulePath, role] = process.argv.slice(2);
serveRole(modulePath, role).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
