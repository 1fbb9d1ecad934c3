/**
 * The port `kubeloop up` listens on when none is given: a stable one (6443, the API server's
 * usual port) when it is free, so the kubeloop context merged into the user's kubeconfig stays
 * valid across restarts, as kind's and k3d's do; otherwise any free port.
 */
import { createServer } from "node:net";

export const UP_PREFERRED_PORT = 6443;

/** Whether `port` can be bound on `host` right now. */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen({ host, port, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** `requested` when it is a port (0 = any); for a negative value, the preferred port if free, else 0. */
export async function choosePort(host: string, requested: number, preferred = UP_PREFERRED_PORT): Promise<number> {
  if (requested >= 0) return requested;
  return (await isPortFree(host, preferred)) ? preferred : 0;
}
