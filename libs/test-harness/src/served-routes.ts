import type { Router } from 'express';

/**
 * What a router serves under `mount`, as the operation tables write it (`get /api/v1/posts/{id}`);
 * the 405 catch-all every path has is left out.
 */
export function servedRoutes(router: Router, mount: string): string[] {
  return router.stack.flatMap(({ route }) => {
    if (!route) return [];
    const path = `${mount}${route.path === '/' ? '' : String(route.path)}`.replace(/:(\w+)/g, '{$1}');
    const { methods } = route as unknown as { methods: Record<string, boolean> };
    return Object.keys(methods)
      .filter((method) => method !== '_all')
      .map((method) => `${method} ${path}`);
  });
}
