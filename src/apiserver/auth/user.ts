/** The authenticated identity of a request (upstream's user.Info) and the well-known names. */

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const SystemMasters = "system:masters";
export const AllAuthenticated = "system:authenticated";
export const AllUnauthenticated = "system:unauthenticated";
export const Anonymous = "system:anonymous";
export const ServiceAccountsGroup = "system:serviceaccounts";
export const ServiceAccountUsernamePrefix = "system:serviceaccount:";

/** The identity kubeloop's kubeconfig uses (client certificate CN / O). */
export const AdminUser: UserInfo = { username: "kubeloop-admin", groups: [SystemMasters, AllAuthenticated] };

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${ServiceAccountUsernamePrefix}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return [ServiceAccountsGroup, `${ServiceAccountsGroup}:${namespace}`];
}

/** namespace and name of a ServiceAccount username, or undefined. */
export function parseServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(ServiceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(ServiceAccountUsernamePrefix.length).split(":");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/** Adds system:authenticated (every authenticated user has it), keeping order and uniqueness. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === Anonymous || user.groups.includes(AllAuthenticated)) return user;
  return { ...user, groups: [...user.groups, AllAuthenticated] };
}
