/**
 * Tagging API routes (contract §5).
 * PLACEHOLDER of the foundation skeleton: the tagging issue registers `/accounts/:account/tags...`.
 */
import type { ApiRouter } from "../api/router";

export function registerTagRoutes(_router: ApiRouter): void {}
