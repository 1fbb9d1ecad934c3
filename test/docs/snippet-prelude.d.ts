/**
 * Names the guides' ```ts blocks use without defining them (test/docs/snippets.test.ts compiles
 * the blocks with this file): the testing guide's Widget resource and its controller's setup
 * function, and vitest's globals, which a test file imports from "vitest".
 */
import type { Controller, CustomResourceInfo, Manager, ResourceDescriptor, TypedObject } from "kubeloop";

declare global {
  interface Widget extends TypedObject {
    spec: { size: string };
    status?: { ready?: boolean };
  }
  const widgets: CustomResourceInfo & { readonly resource: ResourceDescriptor<Widget> };
  function setupWidgetController(mgr: Manager): Controller;
  const it: typeof import("vitest").it;
  const expect: typeof import("vitest").expect;
  const describe: typeof import("vitest").describe;
}
